import Foundation

/// Runs `work`, which blocks (a child waited for, a socket read), on a thread of its own and
/// awaits its result: the task waiting holds no thread of the cooperative pool, which has as
/// many threads as cores (two tests blocked in it at once stall every other async test).
///
/// ```swift
/// let count = try await offPool("psql") { try cluster.psql("SELECT 1") }
/// ```
///
/// - Parameter what: the thread's name, for a debugger's list of threads.
public func offPool<Value: Sendable>(_ what: String, _ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.name = "trawl.\(what)"
        thread.start()
    }
}
