import Foundation

/// The sample pages the repository ships (`Recordings/samples`), written for Trawl.
public struct SamplePage: Sendable, Decodable {
    /// Path on the demo server.
    public var path: String
    public var file: String
    public var contentType: String
    /// Media the page must yield; a leading `/` means "on the server that served the page".
    public var expect: [String]

    public var isHTML: Bool { contentType.hasPrefix("text/html") }

    /// Reads `manifest.json` in `folder`.
    public static func load(from folder: URL) throws -> [SamplePage] {
        try JSONDecoder().decode([SamplePage].self, from: Data(contentsOf: folder.appendingPathComponent("manifest.json")))
    }

    /// A loopback server that answers each sample's path with its file.
    public static func server(for samples: [SamplePage], in folder: URL) throws -> LoopbackServer {
        var files: [String: TestResponse] = [:]
        for sample in samples {
            let body = try Data(contentsOf: folder.appendingPathComponent(sample.file))
            files[sample.path] = .ok(headers: [("Content-Type", sample.contentType)], body: body)
        }
        return try LoopbackServer(files: files)
    }

    /// ``expect`` with server-relative entries made absolute against `base`.
    public func expectedURLs(base: String) -> [String] {
        expect.map { $0.hasPrefix("/") ? base + $0 : $0 }
    }
}

extension LoopbackServer {
    /// A server that answers fixed responses by request target (`/path?query`), else by path,
    /// and 404 for anything else.
    public convenience init(host: String = "127.0.0.1", files: [String: TestResponse]) throws {
        try self.init(host: host) { request in files[request.target] ?? files[request.path] ?? .status(404) }
    }
}
