import Foundation
public import Logging
public import Trawl
public import TrawlBatch
import TrawlCore
public import TrawlQueue
public import TrawlStore

/// Works a shared queue's jobs: claims due jobs in groups under the fleet's politeness, runs
/// each through the full pipeline (`JobAttempt`, the same as `trawl batch`), renews its
/// leases while they run, and commits the outcomes in groups, each with its job's state change.
/// A group's commit also takes over the slots it frees: the next jobs of the same hosts come
/// back leased in the same transaction, so a busy worker claims separately only for room it
/// has not filled. Idle, it waits for a notification (new work, a full host with room, leases
/// returned) or the next time something falls due; it never polls in a loop.
///
/// ```swift
/// try await QueueStore.withStore(location, logger: logger) { store in
///     let worker = QueueWorker(store: store, configuration: .init(batch: BatchConfiguration()))
///     try await worker.run()
/// }
/// ```
public struct QueueWorker: Sendable {
    public struct Configuration: Sendable {
        /// Concurrency, the fetch policy (retries, backoff, `Retry-After`, per-host cap and
        /// delay, applied fleet-wide) and how pages are loaded.
        public var batch: BatchConfiguration
        /// How long a claimed job stays this worker's without a renewal; renewed every third of it.
        public var lease: Duration = .seconds(30)
        /// Stop once the queue has no work left (no unfinished job, every list read to its end).
        public var exitWhenEmpty = false
        /// A job whose lease expired this many times (every worker that took it died or
        /// stalled) ends failed with `attempts-exhausted`.
        public var expiryLimit = QueueStore.defaultExpiryLimit
        /// Finished attempts are committed together, once this many wait (default: half the
        /// worker's slots) or the oldest has waited ``finishDelay``.
        public var finishGroup: Int?
        /// The longest a finished attempt waits for others to share its commit. Its slot runs
        /// the next held job meanwhile; without one it waits for the commit, which brings the
        /// job that takes it over. Longer groups mean fewer transactions for the whole fleet
        /// (a finish's cost is mostly per statement, not per job).
        public var finishDelay: Duration = .milliseconds(10)
        /// Jobs claimed beyond the free slots and held by the worker (default none), so a slot
        /// that frees starts its next job without waiting for its group's commit. Held jobs
        /// count against their host's cap for the whole fleet, as running ones do (on a host
        /// whose cap the fleet's slots fill, a worker holding jobs keeps others' slots empty),
        /// and their leases are renewed with them. None with a per-host delay: a held job
        /// would start later than its claim, closer to the host's next request.
        public var claimAhead = 0

        public init(batch: BatchConfiguration) {
            self.batch = batch
        }
    }

    /// What a worker tells its observer.
    public enum Event: Sendable {
        /// An attempt ended; `kept` is false when its lease had expired and the result was discarded.
        case finished(Job, JobOutcome, kept: Bool)
        /// Nothing to claim and nothing in flight: waiting for a notification or a due time.
        case idle
    }

    /// What a run did.
    public struct Report: Sendable {
        /// Jobs this worker finished (done or failed).
        public var finished = 0
        /// Results discarded because their lease had expired.
        public var discarded = 0
        /// Attempts that ended in a retry later.
        public var retried = 0
    }

    /// This worker's name in the queue (machine, process, a random part).
    public let id: String
    private let store: QueueStore
    private let configuration: Configuration
    private let rules: ClaimRules
    private let attempt: JobAttempt
    private let clock: RunClock
    private let logger: Logger

    /// - Parameters:
    ///   - store: the queue, opened with its outage handling (`QueueStore/reconnecting(stallLimit:)`).
    ///   - configuration: the run's settings, as `trawl batch` takes them.
    ///   - search: the search engines' settings for `!engine` lines.
    ///   - logger: where claims, outages and reconnects are logged.
    ///   - clock: what leases, backoffs and holds are timed on.
    ///   - id: the worker's name in the queue (default: machine, process id and a random part).
    ///   - transport: answers in place of libcurl's (a benchmark's instant answers).
    public init(
        store: QueueStore, configuration: Configuration, search: TrawlConfiguration.Search = TrawlConfiguration.Search(),
        logger: Logger = Logger(label: "trawl.worker"),
        clock: any Clock<Duration> = ContinuousClock(), id: String? = nil, transport: (any PayloadTransport)? = nil
    ) {
        // A worker rides out the server's outages: its operations wait for it and go on.
        // An operation unanswered for a lease's length (10 s at least) is tried again.
        self.store = store.reconnecting(stallLimit: max(configuration.lease, .seconds(10)))
        self.configuration = configuration
        self.logger = logger
        let runClock = RunClock(clock)
        self.clock = runClock
        rules = ClaimRules(perHost: configuration.batch.fetch.perHost, delay: configuration.batch.fetch.delay.seconds)
        attempt = JobAttempt.make(configuration: configuration.batch, search: search, logger: logger, clock: runClock, transport: transport)
        self.id = id ?? "\(ProcessInfo.processInfo.hostName):\(getpid()):\(UInt32.random(in: 0...UInt32.max))"
    }

    private enum Signal: Sendable {
        /// An attempt ended; its slot is free, its outcome on its way to the queue.
        case ended
        /// A group of outcomes committed, or not (``QueueCommitter/Written``).
        case written(QueueCommitter.Written)
        case abandoned
        case wake
        case failed(any Error)
    }

    /// Works until stopped (cancelled), or with ``Configuration/exitWhenEmpty`` until the queue
    /// has no work left. On the way out, jobs still in flight go back to the queue at once.
    public func run(observe: @escaping @Sendable (Event) -> Void = { _ in }) async throws -> Report {
        let store = self.store
        let clock = self.clock
        let rules = self.rules
        let id = self.id
        let leaseSeconds = configuration.lease.seconds
        let concurrency = max(1, configuration.batch.concurrency)
        let ahead = rules.delay > 0 ? 0 : max(0, configuration.claimAhead)
        // Jobs running, held or finishing: the most this worker leases at once.
        let leases = WorkerLeases(capacity: concurrency + ahead)
        // Claims go in groups (a claim is a transaction): of the jobs held ahead, or of a
        // quarter of the slots without them.
        var machine = QueueWorkerStateMachine(
            concurrency: concurrency, claimGroup: ahead > 0 ? ahead : max(1, concurrency / 4), exitWhenEmpty: configuration.exitWhenEmpty)
        let notifications = store.workNotifications()
        let (signals, sink) = AsyncStream.makeStream(of: Signal.self)
        let committer = QueueCommitter(
            store: store, owner: id, rules: rules, group: configuration.finishGroup ?? max(1, concurrency / 2), delay: configuration.finishDelay,
            now: { clock.now }, leases: leases, leaseSeconds: leaseSeconds, deliver: { sink.yield(.written($0)) })
        try await store.register(worker: id, machine: ProcessInfo.processInfo.hostName, pid: Int(getpid()), concurrency: concurrency, now: clock.now)
        try await store.reap(now: clock.now, expiryLimit: configuration.expiryLimit)

        do {
            // Discarding: an attempt's task is freed when it ends. A plain group kept every
            // finished child until awaited, and this loop never awaits them (results come back
            // through `signals`): 14 GB after ~600 000 jobs of the 1M-URL benchmark.
            try await withThrowingDiscardingTaskGroup { group in
                // Notifications from other processes (and this one's pushes) wake the loop.
                group.addTask {
                    for await _ in notifications { sink.yield(.wake) }
                }
                group.addTask { await renewLeases(leases, sink: sink) }
                var iterator = signals.makeAsyncIterator()
                run: while !Task.isCancelled {
                    switch machine.next(now: clock.now, free: leases.free) {
                    case .claim:
                        let room = leases.reserve(upTo: leases.capacity)
                        let now = clock.now
                        let jobs: [Job]
                        do {
                            jobs = try await store.claim(limit: room, owner: id, rules: rules, now: now, leaseUntil: now + leaseSeconds)
                        } catch {
                            leases.fill(room, with: [])
                            throw error
                        }
                        leases.fill(room, with: jobs.map(\.id))
                        machine.claimed(jobs, at: now)
                    case .start(let job):
                        group.addTask { await work(job, leases: leases, committer: committer, sink: sink) }
                    case .lookForWork:
                        machine.looked(unfinished: try await store.hasUnfinishedWork())
                    case .idle:
                        observe(.idle)
                        machine.nextDue(try await store.nextWake(rules: rules), now: clock.now)
                    case .setTimer(let at):
                        group.addTask {
                            try? await clock.sleep(until: at)
                            sink.yield(.wake)
                        }
                    case .wait:
                        guard let signal = await iterator.next() else { break run }
                        switch signal {
                        case .ended: machine.attemptEnded()
                        case .abandoned: machine.attemptAbandoned()
                        case .wake: machine.woke(now: clock.now)
                        case .failed(let error): throw error
                        case .written(.failed(_, let error)): throw error
                        case .written(.committed(let finished, let next)):
                            if !next.isEmpty { machine.tookOver(next) }
                            for item in finished {
                                let outcome = item.finish.outcome
                                machine.committed(kept: item.kept, final: outcome.isFinal)
                                if !item.kept { logger.info("late result discarded: its lease had expired", metadata: ["job.id": "\(item.job.id)"]) }
                                observe(.finished(item.job, outcome, kept: item.kept))
                            }
                        }
                    case .exit:
                        // Workers waiting for the last finish may have missed it: a finish
                        // notifies when its snapshot shows no other job running, and two last
                        // finishes committing at once each saw the other's jobs still running.
                        // This look came after this worker's own last commit, so the last worker
                        // to look sees everything done and wakes the rest (they waited for the
                        // lease timer: 10 s at the default lease).
                        try await store.wakeWorkers()
                        break run
                    }
                }
                group.cancelAll()
            }
        } catch  where Task.isCancelled {
            // Stopped: what was in flight goes back below.
        } catch {
            await committer.drain()
            throw error
        }
        // Outcomes handed to the committer are written before the leases go back.
        await committer.drain()
        try await giveBack(QueueWorkerStateMachine.stop(cancelled: Task.isCancelled, serverOut: store.isServerOut))
        return machine.report
    }

    /// One attempt, from start to its outcome handed to the committer; its end is told to the
    /// run loop through `sink` (and its commit, by the committer).
    private func work(_ job: Job, leases: WorkerLeases, committer: QueueCommitter, sink: AsyncStream<Signal>.Continuation) async {
        let result = await attempt.run(job)
        // A cancelled attempt's outcome says nothing about the page.
        if Task.isCancelled {
            leases.remove(job.id)
            sink.yield(.abandoned)
            return
        }
        // The slot is free now: the next held job starts while this outcome waits to share a
        // commit with others; the committer tells the run loop when its group is written.
        sink.yield(.ended)
        let hold = result.holdHost.map { clock.now + $0 }
        await committer.submit(QueueFinish(jobID: job.id, attempt: job.attempts, outcome: result.outcome, holdUntil: hold), of: job)
    }

    /// Renews this worker's leases on ``QueueWorkerStateMachine/Renewal``'s timer and returns
    /// expired ones; the run loop also looks at the queue then (a notification lost with a
    /// dropped connection).
    private func renewLeases(_ leases: WorkerLeases, sink: AsyncStream<Signal>.Continuation) async {
        let renewal = QueueWorkerStateMachine.Renewal(lease: configuration.lease.seconds)
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(renewal.interval))
            if Task.isCancelled { return }
            do {
                try await store.renew(owner: id, jobs: leases.jobs, until: renewal.until(now: clock.now), now: clock.now)
                if renewal.reaps(recoveredWithinLease: store.recovered(within: renewal.lease)) {
                    try await store.reap(now: clock.now, expiryLimit: configuration.expiryLimit)
                }
            } catch {
                sink.yield(.failed(error))
                return
            }
            sink.yield(.wake)
        }
    }

    /// Jobs still leased to this worker go back now rather than when their lease runs out; in
    /// a task of its own, so a cancelled run still gets to say so.
    private func giveBack(_ stop: QueueWorkerStateMachine.Stop) async throws {
        let (store, clock, id, expiryLimit, logger) = (self.store, self.clock, self.id, configuration.expiryLimit, self.logger)
        try await Task {
            guard case .giveBack(let failingFast) = stop else {
                logger.warning("stopped while the queue is unreachable: the jobs in flight go back when their leases run out")
                return
            }
            let once = failingFast ? store.failingFast : store
            try await once.release(owner: id, now: clock.now, expiryLimit: expiryLimit)
            try? await once.deregister(worker: id, now: clock.now)
        }.value
    }
}

extension JobOutcome {
    var isFinal: Bool {
        if case .retryLater = self { return false }
        return true
    }
}
