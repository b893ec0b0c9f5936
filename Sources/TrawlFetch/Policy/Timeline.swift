/// Time as one clock tells it, counted from when the timeline was made: what the fetch policy
/// and the batch scheduler read and sleep on, so a test can hand them a clock it moves itself.
///
/// ```swift
/// let timeline = Timeline(ContinuousClock())
/// try await timeline.sleep(until: timeline.now + .seconds(1))
/// ```
package struct Timeline: Sendable {
    private let elapsed: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void

    /// A timeline on `clock`, starting now.
    package init(_ clock: any Clock<Duration>) {
        (elapsed, sleeper) = Self.open(clock)
    }

    private static func open<C: Clock>(_ clock: C) -> (@Sendable () -> Duration, @Sendable (Duration) async throws -> Void)
    where C.Duration == Duration {
        let start = clock.now
        return ({ start.duration(to: clock.now) }, { try await clock.sleep(until: start.advanced(by: $0), tolerance: nil) })
    }

    /// Time since the timeline began.
    package var now: Duration { elapsed() }

    /// Suspends until the timeline reads `instant` (at once if it already does).
    /// - Throws: `CancellationError` when the task is cancelled first.
    package func sleep(until instant: Duration) async throws {
        try await sleeper(instant)
    }

    /// Suspends for `duration`.
    package func sleep(for duration: Duration) async throws {
        try await sleeper(now + duration)
    }
}
