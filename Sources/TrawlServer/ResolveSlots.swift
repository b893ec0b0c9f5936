/// At most `limit` resolves at once; the rest wait in arrival order. A waiter that is cancelled
/// (its client left, its deadline passed) leaves the queue without taking a slot.
actor ResolveSlots {
    let limit: Int
    private var running = 0
    private var waiters: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextID = 0

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Runs `work` in a slot, waiting for one first if all are taken.
    /// - Throws: `CancellationError` when cancelled while waiting; whatever `work` throws.
    func withSlot<Value: Sendable>(metrics: ServerMetrics?, _ work: @Sendable () async throws -> Value) async throws -> Value {
        try await acquire(metrics: metrics)
        defer { release() }
        return try await work()
    }

    private func acquire(metrics: ServerMetrics?) async throws {
        if running < limit {
            running += 1
            return
        }
        let id = nextID
        nextID += 1
        metrics?.resolvesWaiting.increment()
        defer { metrics?.resolvesWaiting.decrement() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters.append((id, continuation))
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
        // `release` handed its slot straight to this waiter: `running` already counts it.
    }

    private func cancelWaiter(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
    }

    private func release() {
        if waiters.isEmpty {
            running -= 1
        } else {
            waiters.removeFirst().continuation.resume()
        }
    }
}
