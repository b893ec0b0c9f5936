/// At most `limit` resolves at once; the rest wait in arrival order. A waiter that is cancelled
/// (its client left, its deadline passed) leaves the queue without taking a slot.
///
/// One client may have at most `perClientLimit` resolves running or waiting: one more is
/// `429 too-many-resolves` at once, so that a client with slow pages cannot take every slot
/// and make everyone else wait.
actor ResolveSlots {
    let limit: Int
    let perClientLimit: Int
    private var running = 0
    private var waiters: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextID = 0
    /// Resolves running or waiting, by client.
    private var byClient: [String: Int] = [:]

    init(limit: Int, perClientLimit: Int? = nil) {
        self.limit = max(1, limit)
        self.perClientLimit = max(1, perClientLimit ?? limit)
    }

    /// Runs `work` in a slot for `client`, waiting for one first if all are taken.
    /// - Throws: `429 too-many-resolves` when `client` is at its cap; `CancellationError` when
    ///   cancelled while waiting; whatever `work` throws.
    func withSlot<Value: Sendable>(client: String = "local", metrics: ServerMetrics?, _ work: @Sendable () async throws -> Value) async throws -> Value {
        guard byClient[client, default: 0] < perClientLimit else {
            throw APIError(
                .tooManyRequests, code: "too-many-resolves",
                message: "this client has \(perClientLimit) resolves running or waiting; wait for one to finish",
                headers: [.retryAfter: "1"])
        }
        byClient[client, default: 0] += 1
        defer { leave(client) }
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

    private func leave(_ client: String) {
        let remaining = byClient[client, default: 1] - 1
        byClient[client] = remaining > 0 ? remaining : nil
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
