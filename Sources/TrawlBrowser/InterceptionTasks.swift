import Synchronization

/// The tasks a page started to settle its paused requests, so that they end with the page: an
/// interceptor that fetches a request itself (``RequestInterceptor/fetching(through:observe:)``)
/// is cancelled, and its transfer with it, when the page is done or abandoned. A handle is kept
/// for each of the page's requests until then (a few hundred at most: small).
final class InterceptionTasks: Sendable {
    private let state = Mutex<(tasks: [Task<Void, Never>], cancelled: Bool)>(([], false))

    /// Keeps `task`; cancels it at once when the page has already ended.
    func add(_ task: Task<Void, Never>) {
        let late = state.withLock { state -> Bool in
            if state.cancelled { return true }
            state.tasks.append(task)
            return false
        }
        if late { task.cancel() }
    }

    /// Cancels every task, and each one added from now on.
    func cancelAll() {
        let tasks = state.withLock { state -> [Task<Void, Never>] in
            state.cancelled = true
            defer { state.tasks.removeAll() }
            return state.tasks
        }
        for task in tasks { task.cancel() }
    }
}
