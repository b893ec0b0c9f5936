import Foundation
import Glibc
import Synchronization

/// A loopback TCP port for a program that must be told its port before it binds (a database
/// server a test starts), reserved for as long as this value lives.
///
/// Servers the tests run in-process bind port 0 and report the port the kernel gave; a child
/// that takes `-p PORT` cannot. Taking a number from the kernel (bind to port 0, read it,
/// close) and handing it on frees it for any socket the kernel gives an ephemeral port to
/// meanwhile — a connection's local end, another test's server — which then answers, or sends,
/// in the child's place. So the port comes from outside the kernel's ephemeral range
/// (`/proc/sys/net/ipv4/ip_local_port_range`), which no socket bound to port 0 or connecting
/// out is ever given, and is reserved among reservers by an exclusive `flock` on a file named
/// after it: two reservations, in one process or in two, never hold the same port, and the
/// kernel drops the lock however the process ends (no stale reservation after a `kill -9`). A
/// port some other program listens on is skipped. The files are in `/tmp/trawl-ports`, whatever
/// `$TMPDIR` is: a test run has a temporary folder of its own, and runs side by side must see
/// each other's reservations.
///
/// A lock rather than a socket held on the port: the child must bind that very port, and two
/// sockets share a port only with `SO_REUSEADDR` on both, where the kernel's own choice of
/// ports for port-0 binds then depends on finer rules.
public final class PortReservation: Sendable {
    /// The reserved port.
    public let port: Int
    private let lock: Mutex<Int32?>

    /// Reserves a port nobody listens on now and no other reservation holds.
    public init() throws {
        let folder = URL(fileURLWithPath: "/tmp/trawl-ports")
        if mkdir(folder.path, 0o1777) == 0 {
            // Shared by every user's runs, as the temporary folder is (mkdir's mode is cut by the umask).
            chmod(folder.path, 0o1777)
        }
        let candidates = Self.candidates()
        guard !candidates.isEmpty else { throw PortReservationFailed(description: "no TCP ports outside the kernel's ephemeral range to reserve") }
        let start = Int.random(in: 0..<candidates.count)
        for index in 0..<min(candidates.count, 2000) {
            let port = candidates[(start + index) % candidates.count]
            let fd = open(folder.appendingPathComponent("\(port).lock").path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { continue }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0, Self.isFree(port) else {
                close(fd)
                continue
            }
            self.port = port
            lock = Mutex(fd)
            return
        }
        throw PortReservationFailed(description: "no free TCP port to reserve outside the kernel's ephemeral range")
    }

    /// Ends the reservation (another reserver may take the port afterwards). Also done when the
    /// value is released; call it once the program told the port has stopped.
    public func release() {
        lock.withLock { descriptor in
            if let fd = descriptor { close(fd) }
            descriptor = nil
        }
    }

    deinit { release() }

    /// Ports from 10000 up to the kernel's ephemeral range, and above it.
    static func candidates() -> [Int] {
        var low = 32768, high = 60999
        if let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8) {
            let numbers = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
            if numbers.count == 2 { (low, high) = (numbers[0], numbers[1]) }
        }
        let below = low > 10000 ? Array(10000..<low) : []
        let above = high < 65535 ? Array((high + 1)...65535) : []
        return below + above
    }

    /// Whether nothing is bound to `port` on 127.0.0.1 now (a test bind, closed at once; the
    /// server binds with `SO_REUSEADDR`, as this does, so a connection of ours in TIME_WAIT
    /// there would not stop it).
    private static func isFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

/// No port could be reserved.
public struct PortReservationFailed: Error, CustomStringConvertible, Sendable {
    public var description: String
}
