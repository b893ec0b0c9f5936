import Foundation
import Glibc
import Testing
import TrawlBatch
import TrawlTesting

/// `trawl batch --queue` and `trawl worker` as separate processes, killed with `kill -9` at
/// random moments many times: every input appears exactly once in the output.
@Suite("Queue processes survive kill -9", .timeLimit(.minutes(5)), .tags(.postgres, .process))
struct ProcessKillTests {
    static var trawlBinary: URL? { CommandRun.builtExecutable("trawl") }

    /// A started `trawl` process and the value that turns `true` when it exits: awaited, so a
    /// test waiting for a process holds no thread of the cooperative pool.
    struct Launched {
        let process: Process
        let exited: Watched<Bool>

        /// Waits for the exit (up to `limit`).
        func exit(_ what: String, within limit: Duration = .seconds(180)) async throws {
            try await exited.wait(for: what, within: limit)
        }
    }

    /// - Parameter exits: gathers the process's ID when it exits.
    func launch(_ binary: URL, _ fixture: QueueFixture, _ arguments: [String], log: String, exits: Watched<Set<Int32>>? = nil) throws -> Launched {
        let process = Process()
        let exited = Watched(false)
        process.terminationHandler = { process in
            exited.set(true)
            exits?.update { _ = $0.insert(process.processIdentifier) }
        }
        process.executableURL = binary
        process.arguments =
            arguments + [
                "--queue", fixture.url, "--concurrency", "6", "--per-host", "6", "--backoff", "0.01", "--lease", "1", "--quiet",
            ] + fixture.connectTo.flatMap { ["--connect-to", $0] }
        process.standardOutput = FileHandle.nullDevice
        let path = fixture.folder.appendingPathComponent(log).path
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        handle.seekToEndOfFile()
        process.standardError = handle
        try process.run()
        return Launched(process: process, exited: exited)
    }

    @Test("The batch and two workers, each killed at random moments and restarted: each input once")
    func killAndRestart() async throws {
        let binary = try #require(Self.trawlBinary, "the trawl executable is built beside the tests")
        let kills = KillSwitch()
        let fixture = try await QueueFixture(hosts: ["a.test", "b.test", "c.test"]) { request in
            kills.requestArrived()
            Thread.sleep(forTimeInterval: Double.random(in: 0.004...0.016))  // a peer of uneven speed, not a wait
            if request.path.hasSuffix("/404") { return .status(404) }
            return QueueFixture.page(request.path)
        }
        defer { fixture.server.shutdown() }
        var lines = (1...600).map { "http://\(["a", "b", "c"][$0 % 3]).test/p/\($0)" }
        lines += ["http://a.test/p/3", "http://b.test/p/404", "not a url", "# comment"]
        try fixture.writeList(lines.shuffled())
        let expected = Set(lines.filter { $0.hasPrefix("http") }).union(["not a url"])

        // A job may be in flight in several of the killed processes: no attempt cap here (see attemptCap).
        let batchArguments = ["batch", fixture.list.path, "--out", fixture.output.path, "--max-lease-expiries", "1000"]
        let workerArguments = ["worker", "--max-lease-expiries", "1000"]
        let exits = Watched<Set<Int32>>([])
        let first: [(launched: Launched, arguments: [String], log: String)] = [
            (try launch(binary, fixture, batchArguments, log: "batch.txt", exits: exits), batchArguments, "batch.txt"),
            (try launch(binary, fixture, workerArguments, log: "worker1.txt", exits: exits), workerArguments, "worker1.txt"),
            (try launch(binary, fixture, workerArguments, log: "worker2.txt", exits: exits), workerArguments, "worker2.txt"),
        ]
        // Each exit is met on a thread of its own, blocked until it happens, and the process
        // started again at once: a task would wait for a thread of the pool first, and on a busy
        // pool the others could finish the list while the killed one waits to be started again.
        let (running, killed) = try await offPool("kill-loop") {
            var running = first
            var killed = 0
            for _ in 0..<30 {
                // Killed by the server's handler once it has seen a random number of further
                // requests: at a random moment of real work, however fast or loaded the machine is.
                let victim = Int.random(in: 0..<running.count)
                let (batchID, victimID) = (running[0].launched.process.processIdentifier, running[victim].launched.process.processIdentifier)
                kills.arm(victimID, afterRequests: Int.random(in: 1...25))
                try exits.block(for: "process \(victim) to be killed or the batch to finish") { $0.contains(victimID) || $0.contains(batchID) }
                kills.disarm()
                // The exit seen above has its status: the termination handler runs after it is set.
                let exited = exits.value
                if exited.contains(batchID), running[0].launched.process.terminationReason == .exit { break }  // the batch finished: the list is done
                if running[victim].launched.process.terminationReason == .uncaughtSignal { killed += 1 }
                exits.update { _ = $0.remove(victimID) }
                running[victim].launched = try launch(binary, fixture, running[victim].arguments, log: running[victim].log, exits: exits)
            }
            return (running.map(\.launched), killed)
        }
        // Let the batch finish; then stop the workers (they would wait for more work).
        try await running[0].exit("the batch to finish")
        let log = (try? String(contentsOf: fixture.folder.appendingPathComponent("batch.txt"), encoding: .utf8)) ?? ""
        #expect(running[0].process.terminationStatus == 1, "some inputs fail (404, not a URL), so the exit status is 1: \(log.suffix(2000))")
        for worker in running.dropFirst() {
            kill(worker.process.processIdentifier, SIGTERM)
            try await worker.exit("a worker to stop on SIGTERM")
        }
        #expect(killed >= 5, "only \(killed) kills landed before the batch finished")

        let results = try fixture.results()
        #expect(results.count == expected.count)
        #expect(Set(results.map(\.input)) == expected)
        for result in results where result.input.hasPrefix("http") && !result.input.hasSuffix("/404") {
            #expect(result.status == "done", "\(result)")
            let path = URL(string: result.url!)!.path
            #expect(result.media?.map(\.url) == [QueueFixture.gif(for: path)], "\(result)")
        }
        #expect(results.first { $0.input.hasSuffix("/404") }?.error?.code == "http-404")

        // Run again: nothing to do, no request made, the output unchanged.
        let before = fixture.server.requests.count
        let output = try Data(contentsOf: fixture.output)
        try await launch(binary, fixture, batchArguments, log: "again.txt").exit("the batch run again to finish")
        #expect(fixture.server.requests.count == before)
        #expect(try Data(contentsOf: fixture.output) == output)
    }

    @Test("A page that kills every worker that opens it: after three expired leases it ends failed (attempts-exhausted), the rest done")
    func attemptCap() async throws {
        let binary = try #require(Self.trawlBinary, "the trawl executable is built beside the tests")
        let poisoned = Shared(0)
        let released = Watched(false)
        let fixture = try await QueueFixture(hosts: ["a.test"]) { request in
            guard request.path == "/poison" else { return QueueFixture.page(request.path) }
            // The worker fetching this page is killed by the test; the answer never leaves.
            poisoned.withLock { $0 += 1 }
            _ = try? released.block(for: "the end of the test") { $0 }
            return QueueFixture.page(request.path)
        }
        defer {
            released.set(true)
            fixture.server.shutdown()
        }
        let lines = ["http://a.test/poison"] + (1...20).map { "http://a.test/ok/\($0)" }
        try fixture.writeList(lines)
        let configuration = fixture.configuration()
        try await fixture.withStore { store in try await fixture.push(store, configuration: configuration) }
        let database = String(fixture.url.split(separator: "/").last!)
        func done() async -> Int {
            Int(
                (try? await fixture.cluster.psql("SELECT COUNT(*) FROM trawl_job WHERE state = 'done'", database: database))?.trimmingCharacters(
                    in: .whitespacesAndNewlines) ?? "") ?? 0
        }
        // Each worker is killed (kill -9) while it waits for the page; the first once the other
        // pages are done (its other slots work on while one hangs), so only this page's leases expire.
        for kill in 1...3 {
            let worker = try launch(binary, fixture, ["worker", "--max-lease-expiries", "3"], log: "worker\(kill).txt")
            try await waitUntil("worker \(kill) to hold the poisoned page with the rest done", interval: .milliseconds(20)) {
                if poisoned.withLock({ $0 }) == kill, await done() == 20 { return true }
                return !worker.process.isRunning
            }
            #expect(worker.process.isRunning, "worker \(kill) ended by itself")
            Glibc.kill(worker.process.processIdentifier, SIGKILL)
            try await worker.exit("worker \(kill) to die of SIGKILL")
        }
        // The next worker returns the job the third time its lease runs out: failed, not claimed.
        let last = try launch(binary, fixture, ["worker", "--max-lease-expiries", "3", "--exit-when-empty"], log: "last.txt")
        try await last.exit("the last worker to exit", within: .seconds(120))
        #expect(last.process.terminationStatus == 0)
        #expect(poisoned.withLock { $0 } == 3, "the page was asked for once per killed worker, then never again")
        try await fixture.withStore { store in try await fixture.writeOutput(store) }
        let results = try fixture.results()
        #expect(results.count == lines.count)
        #expect(Set(results.map(\.input)) == Set(lines))
        let poison = results.first { $0.input.hasSuffix("/poison") }
        #expect(poison?.status == "failed")
        #expect(poison?.error?.code == "attempts-exhausted")
        #expect(poison?.attempts == 3)
        #expect(results.filter { $0.input.contains("/ok/") }.allSatisfy { $0.status == "done" })
    }

    @Test("`trawl worker --exit-when-empty` processes finish a pushed list; `trawl queue status` reports it")
    func workersAsProcesses() async throws {
        let binary = try #require(Self.trawlBinary, "the trawl executable is built beside the tests")
        let fixture = try await QueueFixture(hosts: ["a.test", "b.test"]) { request in QueueFixture.page(request.path) }
        defer { fixture.server.shutdown() }
        let lines = (1...120).map { "http://\($0 % 2 == 0 ? "a" : "b").test/w/\($0)" }
        try fixture.writeList(lines)
        // The batch pushes and writes the output; three worker processes do most of the work.
        let batch = try launch(binary, fixture, ["batch", fixture.list.path, "--out", fixture.output.path], log: "batch.txt")
        let workers = try (1...3).map { try launch(binary, fixture, ["worker", "--exit-when-empty"], log: "worker\($0).txt") }
        try await batch.exit("the batch to finish")
        for worker in workers { try await worker.exit("a worker to find the queue empty and exit") }
        #expect(batch.process.terminationStatus == 0)
        #expect(workers.allSatisfy { $0.process.terminationStatus == 0 })
        #expect(Set(try fixture.results().map(\.input)) == Set(lines))
        #expect(try fixture.results().count == lines.count)

        let status = try await CommandRun.run(binary, ["queue", "status", "--queue", fixture.url])
        #expect(status.status == 0, "\(status.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let states = object?["states"] as? [String: Int]
        #expect(states?["done"] == 120)
        #expect(states?["pending"] == 0)
        let workerRows = object?["workers"] as? [[String: Any]] ?? []
        #expect(workerRows.count == 4, "the batch's own worker and three others")
        #expect(workerRows.compactMap { $0["finished"] as? Int }.reduce(0, +) == 120)
        #expect(workerRows.allSatisfy { $0["stoppedAt"] != nil })

        let table = try await CommandRun.run(binary, ["queue", "status", "--queue", fixture.url, "--text"])
        #expect(table.stdout.contains("done 120"))
        #expect(table.stdout.contains("a.test"))

        let bad = try await CommandRun.run(binary, ["queue", "status", "--queue", "mysql://nope"])
        #expect(bad.status == 3)
        #expect(bad.stderr.contains("queue-invalid-url") || bad.stderr.contains("postgres://"), "\(bad.stderr)")
    }
}
