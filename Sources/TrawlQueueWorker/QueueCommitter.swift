import TrawlQueue
import TrawlStore

/// Coalesces a worker's finished attempts: they wait until `group` of them are ready or the
/// oldest has waited `delay` (and, in any case, until the previous group's statement has
/// returned); then they go together in one `FinishStatement` (one round trip, one
/// transaction). ``FinishGroups`` decides when; this actor does the writing. A group's
/// outcomes are handed back together once committed (or known discarded), never before: a
/// crash loses only outcomes not yet acknowledged, whose leases then expire and whose jobs are
/// claimed again. One delivery per group, not a suspended caller per outcome: an attempt's task
/// ends when its outcome is handed over, which spares a task resumption and a run-loop signal
/// per job.
///
/// Waiting changes nothing about exactly-once: the statement checks each lease when it runs,
/// so an outcome whose lease expired while it waited here is discarded like any late result.
///
/// With `WorkerLeases`, each group's statement also takes over the slots it frees: as many
/// due jobs of the same hosts as the worker has room for are leased in the same transaction
/// and handed to `deliver` with the group (the worker holds them until a slot is free).
actor QueueCommitter {
    /// A finished attempt: the job it was, its outcome, and once written whether it counted.
    struct Finished: Sendable {
        let job: Job
        let finish: QueueFinish
        /// `false`: its lease had expired and the result was discarded.
        var kept = false
    }

    /// What a group's statement did.
    enum Written: Sendable {
        /// Committed: each outcome with its verdict, and the jobs leased in the slots it freed.
        case committed([Finished], next: [Job])
        /// The statement failed; these outcomes are not known to be written.
        case failed([Finished], any Error)
    }

    private let store: QueueStore
    private let owner: String
    private let rules: ClaimRules
    private let now: @Sendable () -> Double
    private let clock = ContinuousClock()
    /// Outcomes waiting, and when they go.
    private var groups: FinishGroups<Finished>
    /// The writer while one runs.
    private var writer: Task<Void, Never>?
    /// The writer's wait for more outcomes; cancelled to write early.
    private var timer: Task<Void, Never>?
    private let leases: WorkerLeases?
    private let leaseSeconds: Double
    private let deliver: @Sendable (Written) -> Void

    init(
        store: QueueStore, owner: String, rules: ClaimRules, group: Int, delay: Duration, now: @escaping @Sendable () -> Double,
        leases: WorkerLeases? = nil, leaseSeconds: Double = 30, deliver: @escaping @Sendable (Written) -> Void
    ) {
        self.store = store
        self.owner = owner
        self.rules = rules
        groups = FinishGroups(group: group, delay: delay)
        self.now = now
        self.leases = leases
        self.leaseSeconds = leaseSeconds
        self.deliver = deliver
    }

    /// Queues `finish`, the outcome of `job`'s attempt, for the next group; it comes back
    /// through `deliver` once its group is written.
    func submit(_ finish: QueueFinish, of job: Job) {
        switch groups.arrived(Finished(job: job, finish: finish), at: clock.now) {
        case .startWriter: writer = Task { await self.write() }
        case .cutWait: timer?.cancel()
        case .none: break
        }
    }

    /// Outcomes waiting now (for tests).
    var waitingCount: Int { groups.waiting.count }

    /// Writes what waits now, without waiting for more.
    func flush() {
        groups.flush()
        timer?.cancel()
    }

    /// Writes what waits now and returns once nothing is left to write: a stopping worker's
    /// last outcomes are committed before its leases go back.
    func drain() async {
        while let writer {
            flush()
            await writer.value
        }
    }

    /// The one writer: groups go one statement at a time until nothing waits.
    private func write() async {
        while true {
            switch groups.next(now: clock.now) {
            case .stop:
                writer = nil
                return
            case .wait(let deadline):
                let wait = Task { [clock] in _ = try? await clock.sleep(until: deadline) }
                timer = wait
                await wait.value
                timer = nil
            case .write(let batch):
                await write(batch)
            }
        }
    }

    private func write(_ batch: [Finished]) async {
        // The finished jobs leave the worker's leases; as many slots are reserved for their successors.
        let takeOver = leases?.exchange(finished: batch.map(\.finish.jobID)) ?? 0
        do {
            let time = now()
            let result = try await store.finish(
                batch.map(\.finish), owner: owner, rules: rules, now: time, takeOver: takeOver, leaseUntil: time + leaseSeconds)
            leases?.fill(takeOver, with: result.next.map(\.id))
            var written = batch
            for index in written.indices { written[index].kept = !result.discarded.contains(written[index].finish.jobID) }
            deliver(.committed(written, next: result.next))
        } catch {
            leases?.fill(takeOver, with: [])
            deliver(.failed(batch, error))
        }
    }
}
