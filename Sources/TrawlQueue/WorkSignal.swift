import Synchronization

/// Hands each `NOTIFY` on the work channel to every worker of this process that waits for
/// one: one `LISTEN` connection per process, however many workers share the store.
final class WorkSignal: Sendable {
    private let subscribers = Mutex<[Int: AsyncStream<Void>.Continuation]>([:])
    private let counter = Atomic<Int>(0)

    /// A stream that yields once per notification (at most one waiting: a worker that was busy
    /// needs to know only that something happened).
    func subscribe() -> AsyncStream<Void> {
        let id = counter.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    func signal() {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield() }
    }

    /// Ends every stream (the store is closing).
    func finish() {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
