import TrawlStore

/// Commits attempts' outcomes to the store in groups: while one transaction writes, the
/// outcomes that arrive wait and go together in the next. Each outcome still commits with its
/// job's state change (``JobStore/finish(_:)``), and a caller resumes only once its own outcome
/// is on disk, so a kill at any moment loses nothing the run loop was told of.
///
/// With 32 pages in flight a transaction per page was a tenth of a batch run's CPU.
actor FinishCommitter {
    private let store: any BatchStore
    private var waiting: [(finish: JobStore.Finish, continuation: CheckedContinuation<Void, any Error>)] = []
    private var writing = false

    init(store: any BatchStore) {
        self.store = store
    }

    /// Returns once `finish` is committed.
    func commit(_ finish: JobStore.Finish) async throws {
        try await withCheckedThrowingContinuation { continuation in
            waiting.append((finish, continuation))
            if !writing {
                writing = true
                Task { await self.drain() }
            }
        }
    }

    /// Writes what waits, group after group, until nothing does.
    private func drain() async {
        while !waiting.isEmpty {
            let group = waiting
            waiting.removeAll()
            do {
                try await store.finish(group.map(\.finish))
                for item in group { item.continuation.resume() }
            } catch {
                for item in group { item.continuation.resume(throwing: error) }
            }
        }
        writing = false
    }
}
