/// Commits a worker's finished attempts in groups, as `FinishCommitter` does for the SQLite
/// store: while one transaction writes, the outcomes that arrive wait and go together in the
/// next, and each caller resumes once its own outcome is committed (or known discarded).
actor QueueCommitter {
    private let store: QueueStore
    private let owner: String
    private let rules: ClaimRules
    private let now: @Sendable () -> Double
    private var waiting: [(finish: QueueFinish, continuation: CheckedContinuation<Bool, any Error>)] = []
    private var writing = false

    init(store: QueueStore, owner: String, rules: ClaimRules, now: @escaping @Sendable () -> Double) {
        self.store = store
        self.owner = owner
        self.rules = rules
        self.now = now
    }

    /// Returns once `finish` is committed: `true` if it counted, `false` if its lease had
    /// expired and the result was discarded.
    func commit(_ finish: QueueFinish) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            waiting.append((finish, continuation))
            if !writing {
                writing = true
                Task { await self.drain() }
            }
        }
    }

    private func drain() async {
        while !waiting.isEmpty {
            let group = waiting
            waiting.removeAll()
            do {
                let discarded = try await store.finish(group.map(\.finish), owner: owner, rules: rules, now: now())
                for item in group { item.continuation.resume(returning: !discarded.contains(item.finish.jobID)) }
            } catch {
                for item in group { item.continuation.resume(throwing: error) }
            }
        }
        writing = false
    }
}
