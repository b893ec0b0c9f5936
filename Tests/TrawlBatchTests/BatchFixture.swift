import Foundation
import Synchronization
import Testing
import TrawlBatch
import TrawlCore
import TrawlStore
import TrawlTesting

/// A temporary folder with a URL list, a store and an output, and the loopback server that
/// answers for the hosts the list names (through curl's connect-to).
struct BatchFixture {
    let folder: URL
    let server: LoopbackServer
    let hosts: [String]

    init(hosts: [String], handler: @escaping LoopbackServer.Handler) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        server = try LoopbackServer(handler: handler)
        self.hosts = hosts
    }

    var list: URL { folder.appendingPathComponent("urls.txt") }
    var output: URL { folder.appendingPathComponent("results.jsonl") }
    var store: String { folder.appendingPathComponent("results.sqlite").path }

    /// `host:80:127.0.0.1:PORT` for every host.
    var connectTo: [String] { hosts.map { "\($0):80:127.0.0.1:\(server.port)" } }

    func writeList(_ lines: [String]) throws {
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: list)
    }

    func configuration(concurrency: Int = 8, perHost: Int = 2) -> BatchConfiguration {
        var configuration = BatchConfiguration()
        configuration.concurrency = concurrency
        configuration.fetch.perHost = perHost
        configuration.fetch.backoff = .milliseconds(20)
        configuration.resolve.loader.connectTo = connectTo
        configuration.resolve.loader.timeout = .seconds(10)
        return configuration
    }

    @discardableResult
    func run(_ configuration: BatchConfiguration, inputs: [String]? = nil, clock: any Clock<Duration> = ContinuousClock()) async throws -> BatchRunner.Report {
        let runner = try BatchRunner(configuration: configuration, storePath: store, inputs: inputs ?? [list.path], output: output.path, clock: clock)
        return try await runner.run()
    }

    /// The output, one decoded line each.
    func results() throws -> [BatchResultLine] {
        let text = try String(contentsOf: output, encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONDecoder().decode(BatchResultLine.self, from: Data($0.utf8)) }
    }

    /// A page whose one GIF is named after its path.
    static func page(_ path: String) -> TestResponse {
        .html(
            "<html><head><title>\(path)</title><meta property=\"og:image\" content=\"https://media.test/\(path.replacingOccurrences(of: "/", with: "_")).gif\"></head><body></body></html>"
        )
    }
}
