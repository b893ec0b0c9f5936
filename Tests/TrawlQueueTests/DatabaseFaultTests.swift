import Foundation
import Glibc
import Logging
import Testing
import TrawlBatch
import TrawlCore
import TrawlQueue
import TrawlQueueWorker
import TrawlStore
import TrawlTesting

/// The queue's server crashing, restarting and cutting connections in the middle of a run:
/// `trawl batch --queue`'s process and two workers, each with a store of its own (as on three
/// machines), wait for the server with backoff and finish the list with every job once.
///
/// Each test crashes a cluster of its own (the shared one serves the other suites meanwhile),
/// with PostgreSQL's durable commits, as a production server has them: the queue counts on
/// the output mark's waiting commit to flush the results it writes out.
@Suite("Queue workers survive database faults", .serialized, .tags(.postgres))
struct DatabaseFaultTests {
    /// What a run left behind, per participant (0: the batch, 1 and 2: the workers).
    struct Outcome {
        var outages: [QueueStore.Outages]
        /// The warnings each participant's store logged.
        var warnings: [[String]]
        /// How many times each participant's store said it had reconnected.
        var reconnects: [Int]
        var results: [BatchResultLine]
        var progress: StoreProgress
        var lines: [String]
    }

    /// A page takes a moment to answer, so the run is long enough for a fault to land in it.
    static func fixture(cluster: PostgresCluster) async throws -> QueueFixture {
        try await QueueFixture(hosts: ["a.test", "b.test", "c.test", "d.test", "e.test", "f.test"], cluster: cluster) { request in
            Thread.sleep(forTimeInterval: 0.03)  // a slow peer, not a wait: the run's length
            return QueueFixture.page(request.path)
        }
    }

    /// A cluster of the test's own: durable commits (on a disk that is never pulled, `fsync` off).
    static func cluster() async throws -> PostgresCluster {
        try await PostgresCluster.started(durable: true, settings: ["fsync": "off"])
    }

    /// Pushes `jobs` URLs, then runs the batch and two workers on them, each on a store of its
    /// own named `trawl-0` … `trawl-2` in `pg_stat_activity`, while `faults` does its damage.
    static func run(
        _ fixture: QueueFixture, jobs: Int, lease: Duration, faults: @escaping @Sendable () async throws -> Void
    ) async throws -> Outcome {
        let lines = (1...jobs).map { "http://\(["a", "b", "c", "d", "e", "f"][$0 % 6]).test/j/\($0)" }
        try fixture.writeList(lines)
        var configuration = fixture.configuration(concurrency: 4, perHost: 4)
        configuration.lease = lease
        let settings = configuration
        try await fixture.withStore { store in try await fixture.push(store, configuration: settings) }

        let records = (0..<3).map { _ in Shared<[(Logger.Level, String)]>([]) }
        let outages = try await withThrowingTaskGroup(of: (Int, QueueStore.Outages).self) { group in
            for participant in 0..<3 {
                let location = try QueueLocation(fixture.url + "?application_name=trawl-\(participant)")
                let logger = Logger(label: "trawl-\(participant)", factory: { _ in RecordingLogHandler(records: records[participant]) })
                group.addTask {
                    try await QueueStore.withStore(location, logger: logger, connections: 4) { store in
                        if participant == 0 {
                            // The batch writes the output as results arrive, through the faults too.
                            _ = try await QueueBatch(store: store, configuration: settings, inputs: [], output: fixture.output.path, logger: logger).run()
                        } else {
                            _ = try await QueueWorker(store: store, configuration: settings, logger: logger).run()
                        }
                        return (participant, store.outages)
                    }
                }
            }
            group.addTask {
                try await faults()
                return (-1, QueueStore.Outages())
            }
            var outages = Array(repeating: QueueStore.Outages(), count: 3)
            for try await (participant, figures) in group where participant >= 0 { outages[participant] = figures }
            return outages
        }
        let progress = try await fixture.withStore { store in try await store.progress() }
        let warnings = records.map { $0.withLock { $0.filter { $0.0 == .warning }.map(\.1) } }
        let reconnects = records.map { $0.withLock { $0.filter { $0.1.contains("reconnected to the queue") }.count } }
        return Outcome(
            outages: outages, warnings: warnings, reconnects: reconnects, results: try fixture.results(), progress: progress, lines: lines)
    }

    /// Every job once in the output, done; the queue shows nothing else.
    static func expectExactlyOnce(_ outcome: Outcome) {
        #expect(outcome.results.count == outcome.lines.count, "every job once in the output")
        #expect(Set(outcome.results.map(\.input)) == Set(outcome.lines))
        #expect(outcome.results.allSatisfy { $0.status == "done" }, "\(outcome.results.filter { $0.status != "done" }.prefix(3))")
        #expect(outcome.progress[.done] == outcome.lines.count)
        #expect(outcome.progress.total == outcome.lines.count)
    }

    /// One warning per outage, not one per attempt; probes paced by the backoff (a busy loop
    /// makes thousands in the seconds a restart takes: the delays double from 0.1 s to 5 s).
    static func expectPacedProbes(_ outcome: Outcome, crashes: Int) {
        for (participant, figures) in outcome.outages.enumerated() {
            #expect(figures.count >= 1, "participant \(participant) saw the server go")
            // No lower bound on probes: on a loaded machine a participant may notice the outage
            // only once the server is back, and its first try then succeeds without a probe.
            #expect(figures.attempts <= 25 * crashes, "participant \(participant) probed \(figures.attempts) times")
            let lost = outcome.warnings[participant].filter { $0.contains("lost the connection") }
            #expect(lost.count == figures.count, "participant \(participant): \(lost.count) warnings for \(figures.count) outages")
        }
    }

    @Test(
        "The server crashes mid-run (pg_ctl stop -m immediate) and starts again: the batch and two workers wait for it and finish, each job once",
        .timeLimit(.minutes(4)))
    func crashMidRun() async throws {
        let cluster = try await Self.cluster()
        defer { cluster.stop() }
        let fixture = try await Self.fixture(cluster: cluster)
        defer { fixture.server.shutdown() }
        let jobs = 300
        let requestsAtCrash = Shared(0)
        let outcome = try await Self.run(fixture, jobs: jobs, lease: .seconds(6)) {
            try await fixture.server.waitForRequests { $0.count >= 90 }
            requestsAtCrash.withLock { $0 = fixture.server.requests.count }
            try await cluster.crash()
            try await Task.sleep(for: .milliseconds(1500))  // the outage itself, not a wait: its length
            try await cluster.start()
        }
        #expect(requestsAtCrash.withLock { $0 } < jobs, "the crash came before the run ended")
        Self.expectExactlyOnce(outcome)
        Self.expectPacedProbes(outcome, crashes: 1)
    }

    @Test(
        "The server restarted twice in a row, the second crash while the workers reconnect: each job once, leases shorter than the outages",
        .timeLimit(.minutes(4)))
    func restartedTwice() async throws {
        let cluster = try await Self.cluster()
        defer { cluster.stop() }
        let fixture = try await Self.fixture(cluster: cluster)
        defer { fixture.server.shutdown() }
        let outcome = try await Self.run(fixture, jobs: 300, lease: .seconds(2)) {
            try await fixture.server.waitForRequests { $0.count >= 60 }
            try await cluster.crash()
            try await Task.sleep(for: .milliseconds(1000))  // the first outage, not a wait: its length
            try await cluster.start()
            // The second crash once a participant has its connection back: the others are
            // still reconnecting (each on its own backoff), or have only just done it.
            try await waitUntil("a participant to reconnect after the first restart", interval: .milliseconds(20)) {
                let count = try? await cluster.psql("SELECT COUNT(*) FROM pg_stat_activity WHERE application_name LIKE 'trawl-%'")
                return (Int(count?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0) > 0
            }
            try await cluster.crash()
            try await Task.sleep(for: .milliseconds(1500))  // the second outage, not a wait: its length
            try await cluster.start()
        }
        Self.expectExactlyOnce(outcome)
        Self.expectPacedProbes(outcome, crashes: 2)
    }

    @Test(
        "One worker's connections cut with pg_terminate_backend every 10 pages: it reconnects with backoff each time, the others never notice, each job once",
        .timeLimit(.minutes(4)))
    func connectionTerminated() async throws {
        let cluster = try await Self.cluster()
        defer { cluster.stop() }
        let fixture = try await Self.fixture(cluster: cluster)
        defer { fixture.server.shutdown() }
        let cuts = Shared(0)
        let outcome = try await Self.run(fixture, jobs: 300, lease: .seconds(6)) {
            for at in stride(from: 20, to: 270, by: 10) {
                try await fixture.server.waitForRequests { $0.count >= at }
                let terminated = try await cluster.terminateConnections(application: "trawl-2")
                cuts.withLock { $0 += terminated > 0 ? 1 : 0 }
            }
        }
        let cut = cuts.withLock { $0 }
        #expect(cut >= 3, "the worker had connections to cut")
        Self.expectExactlyOnce(outcome)
        #expect(outcome.outages[2].count >= 1, "the cut worker saw its connection go")
        #expect(outcome.outages[0].count == 0 && outcome.outages[1].count == 0, "\(outcome.outages)")
        #expect(outcome.reconnects[2] >= 1, "the cut worker said it was back")
        // Paced: a busy loop would probe thousands of times; the backoff starts at 0.1 s.
        #expect(outcome.outages[2].attempts <= 25 * cut, "\(outcome.outages[2].attempts) probes for \(cut) cuts")
        let lost = outcome.warnings[2].filter { $0.contains("lost the connection") }
        #expect(lost.count == outcome.outages[2].count)
    }

    @Test(
        "Both workers' connections, probes included, cut every 4 pages: neither is left waiting on a connection that is gone, each job once",
        .timeLimit(.minutes(4)))
    func connectionsTerminatedOften() async throws {
        let cluster = try await Self.cluster()
        defer { cluster.stop() }
        let fixture = try await Self.fixture(cluster: cluster)
        defer { fixture.server.shutdown() }
        let cuts = Shared(0)
        let outcome = try await Self.run(fixture, jobs: 600, lease: .seconds(6)) {
            for at in stride(from: 8, to: 580, by: 4) {
                try await fixture.server.waitForRequests { $0.count >= at }
                let terminated = try await cluster.terminateConnections(application: "trawl-1") + cluster.terminateConnections(application: "trawl-2")
                cuts.withLock { $0 += terminated > 0 ? 1 : 0 }
            }
        }
        let cut = cuts.withLock { $0 }
        #expect(cut >= 10, "the workers had connections to cut")
        Self.expectExactlyOnce(outcome)
        for participant in 1...2 {
            #expect(outcome.reconnects[participant] >= 1, "participant \(participant) said it was back")
            #expect(outcome.outages[participant].attempts <= 25 * cut, "participant \(participant): \(outcome.outages)")
        }
    }

    @Test(
        "Three `trawl worker` processes whose connections are cut again and again mid-run: each says it reconnected, exits 0 at the end, each job once",
        .timeLimit(.minutes(4)), .tags(.process))
    func workerProcessesCut() async throws {
        let binary = try #require(CommandRun.builtExecutable("trawl"), "the trawl executable is built beside the tests")
        let cluster = try await Self.cluster()
        defer { cluster.stop() }
        // Pages wait until every process has joined, so the cuts land in the middle of the run.
        let gate = Watched(false)
        let fixture = try await QueueFixture(hosts: ["a.test", "b.test", "c.test", "d.test", "e.test", "f.test"], cluster: cluster) { request in
            guard (try? gate.block(for: "every process to join the queue", within: .seconds(180)) { $0 }) != nil else { return .status(503) }
            Thread.sleep(forTimeInterval: 0.03)  // a slow peer, not a wait: the run's length
            return QueueFixture.page(request.path)
        }
        defer {
            gate.set(true)
            fixture.server.shutdown()
        }
        let lines = (1...300).map { "http://\(["a", "b", "c", "d", "e", "f"][$0 % 6]).test/p/\($0)" }
        try fixture.writeList(lines)
        // Pushed first, so workers told to exit when the queue is empty find work.
        let configuration = fixture.configuration(concurrency: 4, perHost: 4)
        try await fixture.withStore { store in try await fixture.push(store, configuration: configuration) }

        let exits = Watched(0)
        func launch(_ arguments: [String], application: String) throws -> Process {
            let process = Process()
            process.terminationHandler = { _ in exits.update { $0 += 1 } }
            process.executableURL = binary
            process.arguments =
                arguments + [
                    "--queue", fixture.url + "?application_name=\(application)", "--concurrency", "4", "--per-host", "4", "--backoff", "0.02",
                    "--lease", "6",
                ] + fixture.connectTo.flatMap { ["--connect-to", $0] }
            process.environment = CommandRun.isolatedEnvironment()
            process.standardOutput = FileHandle.nullDevice
            let log = fixture.folder.appendingPathComponent("\(application).txt")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: log)
            try process.run()
            return process
        }
        func log(_ application: String) -> String {
            (try? String(contentsOf: fixture.folder.appendingPathComponent("\(application).txt"), encoding: .utf8)) ?? ""
        }
        let names = ["trawl-w1", "trawl-w2", "trawl-w3"]
        let workers = try names.map { try launch(["worker", "--exit-when-empty"], application: $0) }
        let batch = try launch(["batch", fixture.list.path, "--out", fixture.output.path], application: "trawl-batch")
        let everyone = workers + [batch]
        // Whatever happens, no process outlives the test.
        defer { for process in everyone where process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        // Cut in the middle of the run, not at start-up: a process that loses its connection
        // while it brings the schema up to date fails at once (as it should: a person started it).
        func registered() async -> Int {
            Int(
                (try? await cluster.psql("SELECT COUNT(*) FROM trawl_worker", database: fixture.database))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        }
        try await waitUntil("the batch and the workers to join the queue", interval: .milliseconds(20)) {
            await registered() == names.count + 1 || exits.value > 0
        }
        gate.set(true)
        var cuts = 0
        for at in stride(from: fixture.server.requests.count + 10, to: 270, by: 12) {
            try await waitUntil("\(at) requests or the batch's end") { fixture.server.requests.count >= at || !batch.isRunning }
            guard batch.isRunning else { break }
            var terminated = 0
            for name in names { terminated += try await cluster.terminateConnections(application: name) }
            if terminated > 0 { cuts += 1 }
        }
        // Every termination handler has run, so every exit status is set.
        try await exits.wait(for: "the batch and the workers to exit", within: .seconds(180)) { $0 == everyone.count }

        #expect(cuts >= 3, "the workers had connections to cut")
        #expect(batch.terminationStatus == 0, "\(log("trawl-batch").suffix(2000))")
        for (name, worker) in zip(names, workers) {
            let text = log(name)
            #expect(worker.terminationReason == .exit && worker.terminationStatus == 0, "\(name): \(text.suffix(2000))")
            #expect(text.contains("reconnected to the queue"), "\(name) never said it was back: \(text.suffix(2000))")
            // One warning per outage, at most a few per cut: a worker looping on a dead
            // connection would write them by the thousand.
            let lost = text.components(separatedBy: "lost the connection").count - 1
            #expect(lost >= 1 && lost <= 3 * cuts, "\(name): \(lost) outages for \(cuts) cuts")
        }
        let results = try fixture.results()
        #expect(results.count == lines.count, "every job once in the output")
        #expect(Set(results.map(\.input)) == Set(lines))
        #expect(results.allSatisfy { $0.status == "done" }, "\(results.filter { $0.status != "done" }.prefix(3))")
    }
}

/// Keeps what a logger was told, for a test to read.
struct RecordingLogHandler: LogHandler {
    let records: Shared<[(Logger.Level, String)]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        records.withLock { $0.append((event.level, "\(event.message)")) }
    }
}
