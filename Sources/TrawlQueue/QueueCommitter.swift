import TrawlStore

/// Coalesces a worker's finished attempts: they wait until `group` of them are ready or the
/// oldest has waited `delay` (and, in any case, until the previous group's statement has
/// returned); then they go together in one ``FinishStatement`` (one round trip, one
/// transaction). Each caller resumes once its own outcome is committed (or known
/// discarded), never before: a crash loses only outcomes not yet acknowledged, whose leases
/// then expire and whose jobs are claimed again.
///
/// Waiting changes nothing about exactly-once: the statement checks each lease when it runs,
/// so an outcome whose lease expired while it waited here is discarded like any late result.
///
/// With ``WorkerLeases``, each group's statement also takes over the slots it frees: as many
/// due jobs of the same hosts as the worker has room for are leased in the same transaction
/// and handed to `deliver` (the worker holds them until a slot is free).
actor QueueCommitter {
    private let store: QueueStore
    private let owner: String
    private let rules: ClaimRules
    private let now: @Sendable () -> Double
    /// Flush at once when this many outcomes wait.
    private let group: Int
    /// The longest the oldest waiting outcome waits for others.
    private let delay: Duration
    private let clock = ContinuousClock()
    private var waiting: [(finish: QueueFinish, arrived: ContinuousClock.Instant, continuation: CheckedContinuation<Bool, any Error>)] = []
    private var writing = false
    /// The drain's wait for more outcomes; cancelled to flush early.
    private var timer: Task<Void, Never>?
    /// ``flush()`` was asked for: the next group goes without waiting.
    private var flushNow = false
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
        self.group = max(1, group)
        self.delay = delay
        self.now = now
        self.leases = leases
        self.leaseSeconds = leaseSeconds
        self.deliver = deliver
    }

    /// Returns once `finish` is committed: `true` if it counted, `false` if its lease had
    /// expired and the result was discarded.
    func commit(_ finish: QueueFinish) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            waiting.append((finish, clock.now, continuation))
            if waiting.count >= group { timer?.cancel() }
            if !writing {
                writing = true
                Task { await self.drain() }
            }
        }
    }

    /// Outcomes waiting now (for tests).
    var waitingCount: Int { waiting.count }

    /// Writes what waits now, without waiting for more.
    func flush() {
        flushNow = true
        timer?.cancel()
    }

    private func drain() async {
        while let oldest = waiting.first?.arrived {
            let deadline = oldest + delay
            if waiting.count < group, !flushNow, clock.now < deadline {
                let wait = Task { [clock] in _ = try? await clock.sleep(until: deadline) }
                timer = wait
                await wait.value
                timer = nil
            }
            let batch = waiting
            waiting.removeAll()
            flushNow = false
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
        writing = false
    }
}
