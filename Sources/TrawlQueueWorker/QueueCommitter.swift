import TrawlQueue
import TrawlStore

/// Coalesces a worker's finished attempts: they wait until `group` of them are ready or the
/// oldest has waited `delay` (and, in any case, until the previous group's statement has
/// returned); then they go together in one `FinishStatement` (one round trip, one
/// transaction). ``FinishGroups`` decides when; this actor does the writing. Each caller
/// resumes once its own outcome is committed (or known discarded), never before: a crash loses
/// only outcomes not yet acknowledged, whose leases then expire and whose jobs are claimed again.
///
/// Waiting changes nothing about exactly-once: the statement checks each lease when it runs,
/// so an outcome whose lease expired while it waited here is discarded like any late result.
///
/// With `WorkerLeases`, each group's statement also takes over the slots it frees: as many
/// due jobs of the same hosts as the worker has room for are leased in the same transaction
/// and handed to `deliver` (the worker holds them until a slot is free).
actor QueueCommitter {
    private let store: QueueStore
    private let owner: String
    private let rules: ClaimRules
    private let now: @Sendable () -> Double
    private let clock = ContinuousClock()
    private typealias Waiting = (finish: QueueFinish, continuation: CheckedContinuation<Bool, any Error>)
    /// Outcomes waiting, and when they go.
    private var groups: FinishGroups<Waiting>
    /// The writer's wait for more outcomes; cancelled to write early.
    private var timer: Task<Void, Never>?
    private let leases: WorkerLeases?
    private let leaseSeconds: Double
    private let deliver: @Sendable ([Job]) -> Void

    init(
        store: QueueStore, owner: String, rules: ClaimRules, group: Int, delay: Duration, now: @escaping @Sendable () -> Double,
        leases: WorkerLeases? = nil, leaseSeconds: Double = 30, deliver: @escaping @Sendable ([Job]) -> Void = { _ in }
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

    /// Returns once `finish` is committed: `true` if it counted, `false` if its lease had
    /// expired and the result was discarded.
    func commit(_ finish: QueueFinish) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            switch groups.arrived((finish, continuation), at: clock.now) {
            case .startWriter: Task { await self.write() }
            case .cutWait: timer?.cancel()
            case .none: break
            }
        }
    }

    /// Outcomes waiting now (for tests).
    var waitingCount: Int { groups.waiting.count }

    /// Writes what waits now, without waiting for more.
    func flush() {
        groups.flush()
        timer?.cancel()
    }

    /// The one writer: groups go one statement at a time until nothing waits.
    private func write() async {
        while true {
            switch groups.next(now: clock.now) {
            case .stop:
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

    private func write(_ batch: [Waiting]) async {
        // The finished jobs leave the worker's leases; as many slots are reserved for their successors.
        let takeOver = leases?.exchange(finished: batch.map(\.finish.jobID)) ?? 0
        do {
            let time = now()
            let result = try await store.finish(
                batch.map(\.finish), owner: owner, rules: rules, now: time, takeOver: takeOver, leaseUntil: time + leaseSeconds)
            leases?.fill(takeOver, with: result.next.map(\.id))
            if !result.next.isEmpty { deliver(result.next) }
            for item in batch { item.continuation.resume(returning: !result.discarded.contains(item.finish.jobID)) }
        } catch {
            leases?.fill(takeOver, with: [])
            for item in batch { item.continuation.resume(throwing: error) }
        }
    }
}
