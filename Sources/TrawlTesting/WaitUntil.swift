/// Waits until `condition` holds, re-checking it every `interval` (2 ms unless told), up to
/// `limit` of real time: for the few things a test must wait for that announce themselves by
/// no event (a file another process writes, a route polled over HTTP). Where the code under
/// test, a child process or the loopback server can say that something happened, wait for that
/// instead (``Watched``, ``OutputLines``, ``LoopbackServer/waitForRequests(for:within:_:)``).
///
/// ```swift
/// try await waitUntil("the batch's output to hold 3 lines") { lines() >= 3 }
/// ```
///
/// - Parameter what: what is awaited, for the failure's message.
/// - Throws: ``WaitTimedOut`` naming `what` (which the test records as its failure) if the
///   condition never comes true; `CancellationError` if the task is cancelled.
public func waitUntil(
    _ what: String? = nil, within limit: Duration = .seconds(120), interval: Duration = .milliseconds(2),
    _ condition: () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let end = clock.now + limit
    while try await !condition() {
        guard clock.now < end else { throw WaitTimedOut(limit: limit, what: what) }
        try await Task.sleep(for: interval)
    }
}

/// What a test waited for (``waitUntil(_:within:interval:_:)``, ``Watched``, ``OutputLines``,
/// ``LoopbackServer/waitForRequests(for:within:_:)``) did not happen in time.
public struct WaitTimedOut: Error, CustomStringConvertible, Sendable {
    public var limit: Duration
    /// What was awaited, when the waiter said.
    public var what: String?

    public init(limit: Duration, what: String? = nil) {
        self.limit = limit
        self.what = what
    }

    public var description: String {
        "\(what ?? "the awaited condition") did not come true within \(limit)"
    }
}
