public import Foundation
import Synchronization

/// A value a test and the code it drives share, whose every change wakes whoever waits for it
/// to meet a condition: a test awaits the moment something happened instead of sleeping for a
/// while and hoping it had.
///
/// Waits come in two kinds: `async` (``wait(for:within:until:)``) for test code, and blocking
/// (``block(for:within:until:)``) for a loopback server's handler, which runs on a thread of
/// its own and may hold a response until the test lets it go.
///
/// ```swift
/// let release = Watched(false)
/// let server = try LoopbackServer { request in
///     _ = try? release.block(for: "the test to release /slow") { $0 }
///     return .html("…")
/// }
/// …
/// release.set(true)
/// ```
public final class Watched<Value: Sendable>: Sendable {
    private struct State {
        var value: Value
        var waiters: [UUID: Waiter] = [:]
    }

    private struct Waiter {
        let condition: @Sendable (Value) -> Bool
        let wake: @Sendable (Result<Value, any Error>) -> Void
    }

    private let state: Mutex<State>

    public init(_ value: Value) { state = Mutex(State(value: value)) }

    /// The value now.
    public var value: Value { state.withLock { $0.value } }

    /// How many tasks and threads wait on the value now: for a test of the waiting itself, to
    /// change the value only once its waiters are in place.
    public var waiting: Int { state.withLock { $0.waiters.count } }

    /// Changes the value and wakes every waiter whose condition it now meets.
    @discardableResult
    public func update<R>(_ body: (inout Value) -> R) -> R {
        let (result, woken, value) = state.withLock { state in
            let result = body(&state.value)
            let value = state.value
            let met = state.waiters.filter { $0.value.condition(value) }
            for id in met.keys { state.waiters.removeValue(forKey: id) }
            return (result, Array(met.values), value)
        }
        for waiter in woken { waiter.wake(.success(value)) }
        return result
    }

    /// Sets the value (and wakes the waiters it satisfies).
    public func set(_ value: Value) { update { $0 = value } }

    /// Waits until the value meets `condition`: checked now and again on every change, not
    /// polled. Returns the value that met it.
    /// - Parameter what: what is awaited, for the failure's message.
    /// - Throws: ``WaitTimedOut`` naming `what` after `limit` of real time; `CancellationError`
    ///   if the task is cancelled.
    @discardableResult
    public func wait(
        for what: String, within limit: Duration = .seconds(120), until condition: @escaping @Sendable (Value) -> Bool
    ) async throws -> Value {
        let id = UUID()
        let end: @Sendable (any Error) -> Void = { [self] error in
            state.withLock { $0.waiters.removeValue(forKey: id) }?.wake(.failure(error))
        }
        let timer = Task {
            try await Task.sleep(for: limit)
            end(WaitTimedOut(limit: limit, what: what))
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let now = state.withLock { state -> Result<Value, any Error>? in
                    if condition(state.value) { return .success(state.value) }
                    // Cancelled before it waited: the cancellation handler found nothing to end.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = Waiter(condition: condition) { continuation.resume(with: $0) }
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            end(CancellationError())
        }
    }

    /// Blocks the calling thread until the value meets `condition` (as
    /// ``wait(for:within:until:)`` does a task): for a loopback server's handler thread. Never
    /// call it from a task: it holds a thread of the shared pool.
    /// - Throws: ``WaitTimedOut`` naming `what` after `limit`.
    @discardableResult
    public func block(
        for what: String, within limit: Duration = .seconds(120), until condition: @escaping @Sendable (Value) -> Bool
    ) throws -> Value {
        let id = UUID()
        let woken = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Value, any Error>?>(nil)
        let met = state.withLock { state -> Value? in
            if condition(state.value) { return state.value }
            state.waiters[id] = Waiter(condition: condition) { result in
                outcome.withLock { $0 = result }
                woken.signal()
            }
            return nil
        }
        if let met { return met }
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        if woken.wait(timeout: .now() + seconds) == .timedOut {
            // Woken meanwhile after all, or removed here: either way no one signals later.
            if state.withLock({ $0.waiters.removeValue(forKey: id) }) != nil { throw WaitTimedOut(limit: limit, what: what) }
            woken.wait()
        }
        return try outcome.withLock { $0! }.get()
    }
}

extension Watched where Value == Bool {
    /// Waits until the value is `true`: an event that happens once (a gate opened, a process
    /// exited).
    public func wait(for what: String, within limit: Duration = .seconds(120)) async throws {
        try await wait(for: what, within: limit) { $0 }
    }
}

extension Process {
    /// A value that turns `true` when the process exits, for a test to await
    /// (`try await exited.wait(for: "trawl serve to exit")`) instead of polling `isRunning`.
    /// Sets the termination handler: call it before `run()`.
    public func watchExit() -> Watched<Bool> {
        let exited = Watched(false)
        terminationHandler = { _ in exited.set(true) }
        return exited
    }
}
