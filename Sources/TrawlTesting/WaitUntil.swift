/// Waits (polling every 2 ms, up to `limit` of real time) until `condition` holds: tests await
/// events, not durations. Throws ``WaitTimedOut`` (which the test records as its failure) if
/// the condition never comes true.
public func waitUntil(within limit: Duration = .seconds(120), _ condition: () -> Bool) async throws {
    let clock = ContinuousClock()
    let end = clock.now + limit
    while !condition() {
        guard clock.now < end else { throw WaitTimedOut(limit: limit) }
        try await Task.sleep(for: .milliseconds(2))
    }
}

/// ``waitUntil(within:_:)``'s condition did not come true in time.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public var limit: Duration
    public var description: String { "the awaited condition did not come true within \(limit)" }
}
