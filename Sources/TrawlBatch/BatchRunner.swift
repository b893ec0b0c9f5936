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
        let claimGroup = max(1, configuration.concurrency / 8)
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

        snapshot.totalKnown = pendingIntakes.isEmpty
        var intakeError: String?
        var lastFlush = started

        do {
            try await withThrowingTaskGroup(of: Event.self) { group in
                var intakeRunning = false
                func startIntake() {
                    guard !intakeRunning, let intake = pendingIntakes.first else { return }
                    intakeRunning = true
                    group.addTask {
                        do { return .intake(try await intake.next()) } catch { return .intakeFailed("\(error)") }
                    }
                }
                startIntake()
                var timerAt: Double?
                // Finished results not yet in the output file, and whether a flush is planned:
                // the last results before a quiet spell (long transfers in flight) must not wait
                // for the next event to show.
                var unflushed = false
                var flushPlanned = false
                var flushNow = false

                while true {
                    if Task.isCancelled { break }
                    let now = clock.now
                    scheduler.wake(now: now)
                    // Claims go in groups of an eighth of the slots when the run is busy: a claim
                    // is a transaction, and one per finished page was a cost of its own.
                    let wants = scheduler.freeSlots >= claimGroup || scheduler.inFlight == 0 ? scheduler.wants(now: now) : []
                    if !wants.isEmpty {
                        let claim = try await store.claim(wants, now: now)
                        scheduler.claimed(claim, now: now)
                        for job in claim.jobs {
                            if job.state == .retryLater { snapshot.waiting = max(0, snapshot.waiting - 1) }
                            group.addTask {
                                let report = await attempt.run(job)
                                // A cancelled attempt's outcome says nothing about the page.
                                if Task.isCancelled { return .abandoned }
                                try await committer.commit(.init(jobID: job.id, host: job.host, outcome: report.outcome, now: clock.now))
                                return .finished(job, report)
                            }
                        }
                    }
                    snapshot.inFlight = scheduler.inFlight

                    if scheduler.isIdle && !intakeRunning && pendingIntakes.isEmpty {
                        // Nothing in flight or planned: make sure the store agrees before stopping.
                        let left = try await store.hostsWithWork(now: clock.now)
                        if left.isEmpty { break }
                        for work in left { scheduler.learn(work) }
                        continue
                    }
                    if let wake = scheduler.nextWake, timerAt.map({ wake < $0 }) ?? true {
                        timerAt = wake
                        group.addTask {
                            try? await clock.sleep(until: wake + 0.001)
                            return .timer
                        }
                    }

                    guard let event = try await group.next() else { break }
                    switch event {
                    case .finished(let job, let report):
                        scheduler.finished(job, report: report, now: clock.now)
                        snapshot.finishedThisRun += report.outcome.isFinal ? 1 : 0
                        unflushed = unflushed || report.outcome.isFinal
                        switch report.outcome {
                        case .done(let result):
                            snapshot.done += 1
                            snapshot.mediaFound += result.mediaCount
                            snapshot.pagesRendered += result.rendered ? 1 : 0
                        case .failed(let result):
                            snapshot.failed += 1
                            snapshot.pagesRendered += result.rendered ? 1 : 0
                        case .retryLater:
                            snapshot.waiting += 1
                        }
                    case .intake(let chunk):
                        intakeRunning = false
                        snapshot.total += chunk.added
                        // Rejected lines are finished the moment they are read: they count as failed.
                        snapshot.failed += chunk.rejected
                        snapshot.finishedThisRun += chunk.rejected
                        unflushed = unflushed || chunk.rejected > 0
                        for host in chunk.hosts { scheduler.hasNewWork(host) }
                        if chunk.finished { pendingIntakes.removeFirst() }
                        snapshot.totalKnown = pendingIntakes.isEmpty
                        startIntake()
                    case .intakeFailed(let message):
                        // Jobs already read go on; the rest of this list is reported and skipped.
                        intakeRunning = false
                        intakeError = message
                        pendingIntakes.removeFirst()
                        snapshot.totalKnown = pendingIntakes.isEmpty
                        startIntake()
                    case .timer:
                        timerAt = nil
                    case .flushDue:
                        flushPlanned = false
                        flushNow = true
                    case .abandoned:
                        continue
                    }

                    let after = clock.now
                    // Also when nothing is in flight: the loop may now wait long (for a list being
                    // written to standard input, or a host's delay), and what is done should show.
                    if flushNow || after - lastFlush >= 0.25 || (scheduler.inFlight == 0 && outputFile != nil) {
                        try await outputFile?.catchUp()
                        lastFlush = after
                        unflushed = false
                        flushNow = false
                    }
                    if unflushed, !flushPlanned, outputFile != nil {
                        // Wall time, not the run's clock: this is about writing, not politeness.
                        flushPlanned = true
                        group.addTask {
                            try? await Task.sleep(for: .milliseconds(250))
                            return .flushDue
                        }
                    }
                    snapshot.elapsed = after - started
                    snapshot.inFlight = scheduler.inFlight
                    progress?.update(snapshot)
                }
                group.cancelAll()
            }
        } catch where Task.isCancelled {
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
        snapshot.elapsed = clock.now - started
        snapshot.inFlight = 0
        progress?.finish(snapshot)
        // A list cut short by the interruption is not unreadable: the next run reads on.
        if let intakeError, !interrupted { throw BatchError(.unreadableInput, intakeError) }
        return Report(
            summary: try await store.summary(topHosts: 10), elapsed: snapshot.elapsed, finishedThisRun: snapshot.finishedThisRun, recovered: recovered,
            interrupted: interrupted)
    }
}

extension JobOutcome {
    var isFinal: Bool {
        if case .retryLater = self { return false }
        return true
    }
}
