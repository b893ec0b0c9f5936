import Synchronization

/// Counts requests in flight per host, as a loopback server's handler sees them: what
/// politeness tests compare with the per-host cap.
///
/// ```swift
/// let meter = ConcurrencyMeter()
/// let server = try LoopbackServer { request in
///     meter.enter(request.host); defer { meter.leave(request.host) }
///     …
/// }
/// #expect(meter.peaks["a.test"] ?? 0 <= 2)
/// ```
public final class ConcurrencyMeter: Sendable {
    private let state = Mutex<(now: [String: Int], peak: [String: Int])>(([:], [:]))

    public init() {}

    /// A request to `host` started.
    public func enter(_ host: String) {
        state.withLock {
            $0.now[host, default: 0] += 1
            $0.peak[host] = max($0.peak[host] ?? 0, $0.now[host]!)
        }
    }

    /// A request to `host` ended.
    public func leave(_ host: String) { state.withLock { $0.now[host, default: 0] -= 1 } }

    /// The most requests in flight at once, per host.
    public var peaks: [String: Int] { state.withLock { $0.peak } }

    /// Requests in flight now, per host.
    public var now: [String: Int] { state.withLock { $0.now } }
}
