import Foundation
import Synchronization
import Testing
import TrawlBatch
import TrawlStore
import TrawlTesting

/// `kill -9` the real `trawl batch` process at random moments (after a random number of its
/// requests reached the server), many times, then let it finish:
/// every URL is in the output exactly once, with its media.
@Suite("Batch survives kill -9", .timeLimit(.minutes(5)), .tags(.process))
struct KillTests {
    /// The `trawl` executable built beside this test bundle.
    static var trawlBinary: URL? { CommandRun.builtExecutable("trawl") }

    /// Starts `trawl batch` on the fixture's list; the value turns `true` when it exits (awaited,
    /// so the test holds no thread of the cooperative pool while the batch runs).
    func launch(_ binary: URL, _ fixture: BatchFixture) throws -> (process: Process, exited: Watched<Bool>) {
        let process = Process()
        let exited = process.watchExit()
        process.environment = CommandRun.isolatedEnvironment()
        process.executableURL = binary
        process.arguments =
            [
                "batch", fixture.list.path, "--out", fixture.output.path, "--store", fixture.store,
                "--concurrency", "8", "--per-host", "8", "--backoff", "0.01", "--quiet",
            ] + fixture.connectTo.flatMap { ["--connect-to", $0] }
        process.standardOutput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: fixture.folder.appendingPathComponent("stderr.txt").path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: fixture.folder.appendingPathComponent("stderr.txt"))
        try process.run()
        return (process, exited)
    }

    @Test("Killed at random moments, resumed each time: each URL exactly once, results intact")
    func killAndResume() async throws {
        let binary = try #require(Self.trawlBinary, "the trawl executable is built beside the tests")
        let flaky = Mutex<Set<String>>([])
        let kills = KillSwitch()
        let fixture = try BatchFixture(hosts: ["a.test", "b.test"]) { request in
            kills.requestArrived()
            Thread.sleep(forTimeInterval: Double.random(in: 0.004...0.016))  // a peer of uneven speed, not a wait
            if request.path.hasSuffix("/13"), flaky.withLock({ $0.insert(request.path).inserted }) { return .status(500) }
            if request.path.hasSuffix("/404") { return .status(404) }
            return BatchFixture.page(request.path)
        }
        defer { fixture.server.shutdown() }
        var lines: [String] = []
        for n in 1...600 { lines.append("http://\(n % 2 == 0 ? "a" : "b").test/p/\(n)") }
        lines += ["http://a.test/p/7", "http://b.test/p/404", "not a url", "# comment"]
        try fixture.writeList(lines.shuffled())
        let expected = Set(lines.filter { $0.hasPrefix("http") }).union(["not a url"])

        var killed = 0
        var finishedEarly = ""
        for _ in 0..<25 {
            // Killed by the server's handler once it has seen a random number of this run's
            // requests: at a random moment of real work, however fast or loaded the machine is
            // (a test thread watching the count could be scheduled late, after the batch ended).
            let (process, exited) = try launch(binary, fixture)
            kills.arm(process.processIdentifier, afterRequests: Int.random(in: 1...30))
            try await exited.wait(for: "the batch to be killed or to finish")
            kills.disarm()
            // The exit awaited above has its status: the termination handler runs after it is set.
            guard process.terminationReason == .uncaughtSignal else {
                finishedEarly =
                    "exit \(process.terminationStatus): "
                    + ((try? String(contentsOf: fixture.folder.appendingPathComponent("stderr.txt"), encoding: .utf8)) ?? "")
                break
            }
            killed += 1
        }
        let (last, lastExited) = try launch(binary, fixture)
        try await lastExited.wait(for: "the last run of the batch to finish", within: .seconds(180))
        #expect(last.terminationStatus == 1, "some URLs fail (404, not a URL), so the exit status is 1")
        #expect(killed >= 5, "the batch was killed only \(killed) times; then \(finishedEarly)")

        let results = try fixture.results()
        #expect(results.count == expected.count)
        #expect(Set(results.map(\.input)) == expected)
        for result in results where result.input.hasPrefix("http") && !result.input.hasSuffix("/404") {
            #expect(result.status == "done", "\(result)")
            let path = URL(string: result.url!)!.path
            #expect(result.media?.map(\.url) == ["https://media.test/\(path.replacingOccurrences(of: "/", with: "_")).gif"], "\(result)")
        }
        #expect(results.first { $0.input.hasSuffix("/404") }?.error?.code == "http-404")

        // A finished store does no network work when run again, and the output stays as it is.
        let before = fixture.server.requests.count
        let output = try Data(contentsOf: fixture.output)
        try await launch(binary, fixture).exited.wait(for: "the batch run again to finish", within: .seconds(180))
        #expect(fixture.server.requests.count == before)
        #expect(try Data(contentsOf: fixture.output) == output)
    }
}
