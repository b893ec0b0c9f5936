import Foundation
import Testing
import TrawlBatch
import TrawlFetch
import TrawlTesting

/// The HTTP cache (TrawlFetch's) under a batch run.
@Suite("Batch over the HTTP cache", .timeLimit(.minutes(5)))
struct BatchCacheTests {
    @Test("A batch run again over the cache revalidates instead of downloading")
    func batchOverCache() async throws {
        let fixture = try BatchFixture(hosts: ["a.test"]) { request in
            if request.header("if-none-match") != nil { return .ok(status: 304, body: Data()) }
            guard case .ok(_, let headers, let body) = BatchFixture.page(request.path) else { return .hangUp }
            return .ok(headers: headers + [("ETag", "\"e\(request.path.count)\""), ("Cache-Control", "no-cache")], body: body)
        }
        defer { fixture.server.shutdown() }
        try fixture.writeList((1...5).map { "http://a.test/page/\($0)" })
        var configuration = fixture.configuration()
        configuration.fetch.cache = try FetchPolicy.Cache(directory: fixture.folder.appendingPathComponent("cache"))
        try await fixture.run(configuration)
        // A second, separate batch (its own store and output) over the same cache.
        let second = fixture.folder.appendingPathComponent("second.jsonl")
        let runner = try BatchRunner(
            configuration: configuration, storePath: fixture.folder.appendingPathComponent("second.sqlite").path, inputs: [fixture.list.path],
            output: second.path)
        let report = try await runner.run()
        #expect(report.summary.progress[.done] == 5)
        #expect(fixture.server.requests.filter { $0.header("if-none-match") != nil }.count == 5)
        let lines = try String(contentsOf: second, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines.allSatisfy { $0.contains("media.test") })
    }
}
