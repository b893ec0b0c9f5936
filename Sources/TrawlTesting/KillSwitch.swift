public import Glibc
import Synchronization

/// Kills a process (`SIGKILL`) the moment a loopback server's handler has seen a number of
/// further requests: a kill test's "random moment of real work", taken when the work happens,
/// however fast or loaded the machine is, and not by a test thread polling the request count.
///
/// ```swift
/// let kills = KillSwitch()
/// let server = try LoopbackServer { request in
///     kills.requestArrived()
///     …
/// }
/// let exited = process.watchExit()
/// try process.run()
/// kills.arm(process.processIdentifier, afterRequests: Int.random(in: 1...30))
/// try await exited.wait(for: "the batch to be killed or to finish")
/// kills.disarm()
/// ```
public final class KillSwitch: Sendable {
    private struct State {
        var seen = 0
        var armed: (at: Int, pid: pid_t)?
    }

    private let state = Mutex(State())

    public init() {}

    /// Requests counted so far.
    public var requestsSeen: Int { state.withLock { $0.seen } }

    /// Counts a request (call it from the server's handler) and fires the switch if it is due.
    public func requestArrived() {
        state.withLock { state in
            state.seen += 1
            // Under the lock: once ``disarm()`` returns, no kill can reach a reused process ID.
            if let armed = state.armed, state.seen >= armed.at {
                kill(armed.pid, SIGKILL)
                state.armed = nil
            }
        }
    }

    /// Kills `pid` once `count` more requests have arrived.
    public func arm(_ pid: pid_t, afterRequests count: Int) {
        state.withLock { $0.armed = ($0.seen + count, pid) }
    }

    /// Whether the switch is armed and has not fired.
    public var isArmed: Bool { state.withLock { $0.armed != nil } }

    /// Takes the switch back (the process ended by itself first).
    public func disarm() {
        state.withLock { $0.armed = nil }
    }
}
