public import Foundation
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
    /// Wakes handlers waiting in ``waitUntil(_:inFlight:before:)``. A request that enters
    /// broadcasts with it locked, and a waiter reads the counts with it locked until `wait`
    /// releases it: no wake-up falls between a waiter's check and its wait.
    private let entered = NSCondition()

    public init() {}

    /// A request to `host` started.
    public func enter(_ host: String) {
        entered.lock()
        state.withLock {
            $0.now[host, default: 0] += 1
            $0.peak[host] = max($0.peak[host] ?? 0, $0.now[host]!)
        }
        entered.broadcast()
        entered.unlock()
    }

    /// A request to `host` ended.
    public func leave(_ host: String) { state.withLock { $0.now[host, default: 0] -= 1 } }

    /// Blocks the calling thread (a handler's) until `count` requests to `host` are in flight
    /// at once, or `deadline` passes; whether they were. A handler that holds its request this
    /// way shows any cap that lets more through, however the threads are timed.
    @discardableResult
    public func waitUntil(_ host: String, inFlight count: Int, before deadline: Date) -> Bool {
        entered.lock()
        defer { entered.unlock() }
        while (now[host] ?? 0) < count {
            guard entered.wait(until: deadline) else { return (now[host] ?? 0) >= count }
        }
        return true
    }

    /// The most requests in flight at once, per host.
    public var peaks: [String: Int] { state.withLock { $0.peak } }

    /// Requests in flight now, per host.
    public var now: [String: Int] { state.withLock { $0.now } }
}
