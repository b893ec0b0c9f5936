import Foundation
public import Logging
public import Trawl
import TrawlCore
import TrawlFetch
public import TrawlStore

/// Works a store's jobs to the end: reads the URL lists into it, schedules politely per host,
/// retries what may pass, and keeps the output file in step.
///
/// ```swift
/// let runner = try BatchRunner(configuration: .init(), storePath: "trawl.sqlite", inputs: ["urls.txt"], output: "results.jsonl")
/// let report = try await runner.run(progress: BatchProgress())
/// print(BatchSummaryText.render(report.summary, elapsed: report.elapsed, finishedThisRun: report.finishedThisRun))
/// ```
///
/// One scheduling loop owns all the bookkeeping; each attempt runs in its own child task and
/// commits its outcome to the store itself, so the loop only learns what happened.
public struct BatchRunner: Sendable {
    public let configuration: BatchConfiguration
    public let store: JobStore
    private let lock: RunLock
    private let inputs: [String]
    private let output: String?
    private let attempt: JobAttempt
    private let logger: Logger
    private let clock: RunClock

    /// Opens the store and takes its run lock.
    /// - Parameters:
    ///   - inputs: URL lists (`-` for standard input) to add to the store; none to finish a store's work.
    ///   - output: the JSON-lines file to keep in step with the results, if any.
    ///   - clock: what backoffs, `Retry-After` holds and delays are timed on (a test's clock in tests).
    public init(
        configuration: BatchConfiguration, storePath: String, inputs: [String], output: String?,
        search: TrawlConfiguration.Search = TrawlConfiguration.Search(), logger: Logger = Logger(label: "trawl.batch"),
        clock: any Clock<Duration> = ContinuousClock()
    ) throws {
        self.configuration = configuration
        store = try JobStore(path: storePath)
        lock = try RunLock(storePath: storePath)
        self.inputs = inputs
        self.output = output
        self.logger = logger
        self.clock = RunClock(clock)
        // The scheduler retries and spaces jobs itself; the transport keeps only the cache.
        attempt = JobAttempt.make(configuration: configuration, search: search, logger: logger, clock: self.clock)
    }

    /// What a run did.
    public struct Report: Sendable {
        public var summary: StoreSummary
        public var elapsed: Double
        public var finishedThisRun: Int
        /// Jobs a dead run had left `running`, put back at the start.
        public var recovered: Int
        /// The run was cancelled (Ctrl-C) before the store's work was done: what was in flight
        /// went back to the store, and the same command goes on from there.
        public var interrupted = false
    }

    private enum Event: Sendable {
        case finished(Job, JobAttempt.Report)
        /// An attempt that ended because the run was cancelled: not committed, its job goes back.
        case abandoned
        case intake(Intake.Chunk)
        case intakeFailed(String)
        case timer
        /// Results are waiting to be written out (a quarter second of wall time has passed).
        case flushDue
    }

    public func run(progress: BatchProgress? = nil) async throws -> Report {
        let store: any BatchStore = self.store
        let attempt = self.attempt
        let clock = self.clock
        let started = clock.now
        let recovered = try await store.recoverAbandoned(now: started)
        if recovered > 0 { logger.info("put back \(Counted(recovered, "job")) a stopped run left running") }
        // Every list is read on from where the store left it: lines appended since join.
        var pendingIntakes: [Intake] = []
        for input in inputs { pendingIntakes.append(try await Intake(path: input, store: store, configuration: configuration)) }
        var outputFile: OutputFile?
        if let output { outputFile = try await OutputFile.open(path: output, store: store) }
        try await outputFile?.catchUp()

        let committer = FinishCommitter(store: store)
        var scheduler = Scheduler(configuration: configuration)
        for work in try await store.hostsWithWork(now: started) { scheduler.learn(work) }
        let initial = try await store.progress()
        var snapshot = BatchSnapshot()
        snapshot.total = initial.total
        snapshot.done = initial[.done]
        snapshot.failed = initial[.failed]
        snapshot.waiting = initial[.retryLater]
        snapshot.mediaFound = initial.mediaFound
        snapshot.pagesRendered = initial.pagesRendered
        var machine = BatchRunStateMachine(
            scheduler: scheduler, claimGroup: max(1, configuration.concurrency / 8), lists: pendingIntakes.count, hasOutput: outputFile != nil,
            snapshot: snapshot, now: started)

        do {
            try await withThrowingTaskGroup(of: Event.self) { group in
                run: while !Task.isCancelled {
                    switch machine.next(now: clock.now) {
                    case .readIntake:
                        let intake = pendingIntakes[0]
                        group.addTask {
                            do { return .intake(try await intake.next()) } catch { return .intakeFailed("\(error)") }
                        }
                    case .claim(let wants):
                        let now = clock.now
                        machine.claimed(try await store.claim(wants.map { ($0.host, $0.limit) }, now: now), now: now)
                    case .start(let job):
                        group.addTask {
                            let report = await attempt.run(job)
                            // A cancelled attempt's outcome says nothing about the page.
                            if Task.isCancelled { return .abandoned }
                            try await committer.commit(.init(jobID: job.id, host: job.host, outcome: report.outcome, now: clock.now))
                            return .finished(job, report)
                        }
                    case .lookForWork:
                        machine.looked(try await store.hostsWithWork(now: clock.now))
                    case .setTimer(let wake):
                        group.addTask {
                            try? await clock.sleep(until: wake + 0.001)
                            return .timer
                        }
                    case .flush:
                        try await outputFile?.catchUp()
                        machine.flushed(at: clock.now)
                    case .planFlush:
                        // Wall time, not the run's clock: this is about writing, not politeness.
                        group.addTask {
                            try? await Task.sleep(for: .milliseconds(250))
                            return .flushDue
                        }
                    case .wait:
                        var shown = machine.snapshot
                        shown.elapsed = clock.now - started
                        progress?.update(shown)
                        guard let event = try await group.next() else { break run }
                        switch event {
                        case .finished(let job, let report): machine.finished(job, report: report, now: clock.now)
                        case .abandoned: machine.abandoned()
                        case .intake(let chunk):
                            if chunk.finished { pendingIntakes.removeFirst() }
                            machine.intakeRead(chunk)
                        case .intakeFailed(let message):
                            pendingIntakes.removeFirst()
                            machine.intakeFailed(message)
                        case .timer: machine.timerFired()
                        case .flushDue: machine.flushDue()
                        }
                    case .exit:
                        break run
                    }
                }
                group.cancelAll()
            }
        } catch  where Task.isCancelled {
            // A claim or a commit cut short by the cancellation: the store has it or not, and
            // whatever it left `running` goes back below.
        }
        let interrupted = Task.isCancelled
        if interrupted {
            // Only this run (holding the lock) can have jobs running: they go back to pending.
            let back = try await store.recoverAbandoned(now: clock.now)
            if back > 0 { logger.info("interrupted: put back \(Counted(back, "job")) that \(back == 1 ? "was" : "were") in flight") }
        }
        try await outputFile?.catchUp()
        var final = machine.snapshot
        final.elapsed = clock.now - started
        final.inFlight = 0
        progress?.finish(final)
        // A list cut short by the interruption is not unreadable: the next run reads on.
        if let intakeError = machine.intakeError, !interrupted { throw BatchError(.unreadableInput, intakeError) }
        return Report(
            summary: try await store.summary(topHosts: 10), elapsed: final.elapsed, finishedThisRun: final.finishedThisRun, recovered: recovered,
            interrupted: interrupted)
    }
}
