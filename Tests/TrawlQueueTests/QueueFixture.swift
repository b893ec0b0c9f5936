import Foundation
import Logging
import Synchronization
import Testing
import TrawlBatch
import TrawlCore
import TrawlQueue
import TrawlQueueWorker
import TrawlStore
import TrawlTesting

/// A fresh database in the test run's PostgreSQL cluster, a temporary folder with a URL list
/// and an output, and the loopback server answering for the hosts the list names.
struct QueueFixture {
    let cluster: PostgresCluster
    let url: String
    let location: QueueLocation
    let folder: URL
    let server: LoopbackServer
    let hosts: [String]

    /// - Parameter cluster: the test's own cluster (one it crashes); the test run's by default.
    init(hosts: [String], keepsAlive: Bool = false, cluster: PostgresCluster? = nil, handler: @escaping LoopbackServer.Handler) async throws {
        let cluster = if let cluster { cluster } else { try await PostgresCluster.shared() }
        self.cluster = cluster
        url = try await cluster.createDatabase()
        location = try QueueLocation(url)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-queue-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        server = try LoopbackServer(keepsAlive: keepsAlive, handler: handler)
        self.hosts = hosts
    }

    var list: URL { folder.appendingPathComponent("urls.txt") }
    var output: URL { folder.appendingPathComponent("results.jsonl") }
    var connectTo: [String] { hosts.map { "\($0):80:127.0.0.1:\(server.port)" } }
    /// The database's name in the cluster.
    var database: String { String(url.split(separator: "/").last!) }

    func writeList(_ lines: [String]) throws {
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: list)
    }

    func configuration(concurrency: Int = 8, perHost: Int = 2) -> QueueWorker.Configuration {
        var batch = BatchConfiguration()
        batch.concurrency = concurrency
        batch.fetch.perHost = perHost
        batch.fetch.backoff = .milliseconds(20)
        batch.resolve.loader.connectTo = connectTo
        batch.resolve.loader.timeout = .seconds(20)
        var configuration = QueueWorker.Configuration(batch: batch)
        configuration.exitWhenEmpty = true
        return configuration
    }

    /// Opens the queue for `body`.
    func withStore<T: Sendable>(migrate: Bool = true, _ body: @Sendable (QueueStore) async throws -> T) async throws -> T {
        try await QueueStore.withStore(location, logger: Logger(label: "test"), migrate: migrate, connections: 12, body)
    }

    /// Pushes the list into the queue as `trawl batch --queue` does.
    func push(_ store: QueueStore, configuration: QueueWorker.Configuration) async throws {
        let intake = try await Intake(path: list.path, store: store, configuration: configuration.batch)
        while try await !intake.next().finished {}
    }

    /// Writes the queue's results to the output file.
    func writeOutput(_ store: QueueStore) async throws {
        let file = try await OutputFile.open(path: output.path, store: store)
        try await file.catchUp()
    }

    /// The output, one decoded line each.
    func results() throws -> [BatchResultLine] {
        let text = try String(contentsOf: output, encoding: .utf8)
        return try text.split(separator: "\n").enumerated().map { number, line in
            do {
                return try JSONDecoder().decode(BatchResultLine.self, from: Data(line.utf8))
            } catch {
                // Name the line: a broken output line is a bug to find, not just a failure.
                Issue.record("output line \(number + 1) of \(output.path) is not a result line (\(error)): \(line.prefix(500))")
                throw error
            }
        }
    }

    /// A page whose one GIF is named after its path.
    static func page(_ path: String) -> TestResponse {
        .html(
            "<html><head><title>\(path)</title><meta property=\"og:image\" content=\"https://media.test/\(path.replacingOccurrences(of: "/", with: "_")).gif\"></head><body></body></html>"
        )
    }

    static func gif(for path: String) -> String { "https://media.test/\(path.replacingOccurrences(of: "/", with: "_")).gif" }
}

/// A value shared by a test and the closures it hands to workers and servers.
final class Shared<Value: Sendable>: Sendable {
    private let state: Mutex<Value>

    init(_ value: Value) { state = Mutex(value) }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        state.withLock { body(&$0) }
    }
}
