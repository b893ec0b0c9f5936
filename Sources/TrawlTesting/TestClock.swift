import Synchronization

/// A clock that only moves when told: tests of waits (backoff, `Retry-After`, per-host delays)
/// step through time instead of sleeping, so they neither take the time nor flake when the
/// machine is slow.
///
/// ```swift
/// let clock = TestClock()
/// // hand `clock` to the code under test, wait for it to sleep…
/// let deadline = try await clock.nextSleep()   // when it wants to wake
/// clock.advance(to: deadline)
/// ```
///
/// With `automatic: true`, every sleep returns at once and moves the clock to its deadline
/// (time jumps); ``sleeps`` lists what was asked.
public final class TestClock: Clock, Sendable {
    public struct Instant: InstantProtocol, Sendable {
        /// Time since the clock was made.
        public var offset: Duration

        public init(offset: Duration) { self.offset = offset }
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private struct Sleeper {
        var id: Int
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration = .zero
        var sleepers: [Sleeper] = []
        var nextID = 0
        var sleeps: [Duration] = []
    }

    private let state = Mutex(State())
    private let automatic: Bool

    /// - Parameter automatic: sleeps return at once, moving the clock to their deadline.
    public init(automatic: Bool = false) {
        self.automatic = automatic
    }

    public var now: Instant { Instant(offset: state.withLock { $0.now }) }
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// How long each sleep asked for, from the clock's time when it was asked, in order.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// The deadlines of the sleeps now waiting, earliest first.
    public var pendingDeadlines: [Duration] { state.withLock { $0.sleepers.map(\.deadline).sorted() } }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        let id: Int? = state.withLock { state in
            state.sleeps.append(deadline.offset - state.now)
            if deadline.offset <= state.now { return nil }
            if automatic {
                state.now = deadline.offset
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    // Moved past the deadline (or cancelled) before the continuation existed.
                    if state.now >= deadline.offset || Task.isCancelled { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline.offset, continuation: continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// Moves the clock to `instant` (never back) and wakes every sleep due by then.
    public func advance(to instant: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = max(state.now, instant)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Moves the clock on by `duration`.
    public func advance(by duration: Duration) {
        advance(to: state.withLock { $0.now } + duration)
    }

    /// Waits (polling, up to `limit` of real time) until some task sleeps on this clock, and
    /// returns the earliest deadline waiting.
    /// - Throws: when nothing sleeps within `limit`.
    public func nextSleep(within limit: Duration = .seconds(60)) async throws -> Duration {
        let real = ContinuousClock()
        let end = real.now + limit
        while real.now < end {
            if let first = pendingDeadlines.first { return first }
            try await Task.sleep(for: .milliseconds(2))
        }
        throw TestClockTimeout()
    }
}

/// Nothing slept on a ``TestClock`` within the time a test allowed.
public struct TestClockTimeout: Error, Sendable, CustomStringConvertible {
    public var description: String { "nothing slept on the test clock in time" }
}
