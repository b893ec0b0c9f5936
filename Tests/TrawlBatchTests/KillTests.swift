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

    func launch(_ binary: URL, _ fixture: BatchFixture) throws -> Process {
        let process = Process()
        process.environment = CommandRun.isolatedEnvironment()
        process.executableURL = binary
        process.arguments = [
            "batch", fixture.list.path, "--out", fixture.output.path, "--store", fixture.store,
            "--concurrency", "8", "--per-host", "8", "--backoff", "0.01", "--quiet",
        ] + fixture.connectTo.flatMap { ["--connect-to", $0] }
        process.standardOutput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: fixture.folder.appendingPathComponent("stderr.txt").path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: fixture.folder.appendingPathComponent("stderr.txt"))
        try process.run()
        return process
    }

    @Test("Killed at random moments, resumed each time: each URL exactly once, results intact")
    func killAndResume() throws {
        let binary = try #require(Self.trawlBinary, "the trawl executable is built beside the tests")
        let flaky = Mutex<Set<String>>([])
        let fixture = try BatchFixture(hosts: ["a.test", "b.test"]) { request in
            Thread.sleep(forTimeInterval: Double.random(in: 0.004...0.016))
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

        var kills = 0
        var finishedEarly = ""
        for _ in 0..<25 {
            // Killed once the server has seen a random number of this run's requests: at a
            // random moment of real work, however fast or loaded the machine is.
            let seen = fixture.server.requests.count
            let target = seen + Int.random(in: 1...30)
            let process = try launch(binary, fixture)
            // Thread sleeps, not Task.sleep: with other tests holding the cooperative threads a
            // task could resume seconds late, after the batch had finished.
            let deadline = Date().addingTimeInterval(120)
            while process.isRunning, fixture.server.requests.count < target, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.001)
            }
            guard process.isRunning else {
                process.waitUntilExit()
                finishedEarly = "exit \(process.terminationStatus): " + ((try? String(contentsOf: fixture.folder.appendingPathComponent("stderr.txt"), encoding: .utf8)) ?? "")
                break
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // It may have finished between the check and the kill.
            if process.terminationReason == .exit {
                finishedEarly = "exit \(process.terminationStatus) before the kill"
                break
            }
            kills += 1
        }
        let last = try launch(binary, fixture)
        last.waitUntilExit()
        #expect(last.terminationStatus == 1, "some URLs fail (404, not a URL), so the exit status is 1")
        #expect(kills >= 5, "the batch was killed only \(kills) times; then \(finishedEarly)")

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
        let again = try launch(binary, fixture)
        again.waitUntilExit()
        #expect(fixture.server.requests.count == before)
        #expect(try Data(contentsOf: fixture.output) == output)
    }
}
