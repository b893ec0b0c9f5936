import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import Trawl
import TrawlServer
import TrawlTesting

/// The repository, for its recordings.
let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Servers for the tests: on recordings (no network at all), or on the tests' own loopback
/// pages reached through made-up hosts that curl maps to 127.0.0.1.
enum ServerFixture {
    /// A server that replays every recording under `Recordings/`.
    static func replaying(_ adjust: (inout ServerConfiguration) -> Void = { _ in }) throws -> TrawlServer {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.trawl.replay = try TrawlConfiguration.Replay(path: repository.appendingPathComponent("Recordings"))
        configuration.limits.rate = nil
        adjust(&configuration)
        return try TrawlServer(configuration: configuration)
    }

    /// A server whose fetches of `hosts` (port 80, plain HTTP) go to `site`.
    static func live(site: LoopbackServer, hosts: [String], _ adjust: (inout ServerConfiguration) -> Void = { _ in }) throws -> TrawlServer {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.trawl.loader.connectTo = hosts.map { "\($0):80:127.0.0.1:\(site.port)" }
        configuration.trawl.loader.timeout = .seconds(10)
        configuration.batchDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-serve-\(UUID().uuidString)")
        configuration.limits.rate = nil
        adjust(&configuration)
        return try TrawlServer(configuration: configuration)
    }

    /// A Hummingbird application of `server` for `app.test(.router | .live)`.
    static func application(_ server: TrawlServer) -> some ApplicationProtocol {
        server.makeApplication()
    }

    /// A page with one GIF named after its path (og:image).
    static func page(_ path: String) -> TrawlTesting.TestResponse {
        .html("<html><head><title>\(path)</title><meta property=\"og:image\" content=\"https://media.test\(path).gif\"></head><body></body></html>")
    }
}

/// The recorded Giphy page with one GIF (and its renditions).
let giphyCatPage = "https://giphy.com/gifs/dancing-cat-Trawl0Cat1Demo"
let giphyCatGIF = "https://media2.giphy.com/media/v1.Y2lkPXRyYXds/Trawl0Cat1Demo/giphy.gif"
/// The recorded blog post with four GIFs.
let blogPost = "https://blog.trawl.example/2024/loading-animations"

extension HummingbirdTesting.TestResponse {
    var text: String { String(buffer: body) }

    func json() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    /// The `{"error":{"code",…}}` code of an error answer.
    func errorCode() throws -> String? {
        (try json()["error"] as? [String: Any])?["code"] as? String
    }

    /// Each non-empty line, decoded.
    func jsonLines() throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON line: \(line)")
        }
    }
}

/// `q` percent-encoded for a query string.
func encoded(_ text: String) -> String {
    var allowed = CharacterSet.urlQueryAllowed
    allowed.remove(charactersIn: "&+=?#/:")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
}
