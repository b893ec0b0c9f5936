import Foundation
import Glibc
import Synchronization

/// A loopback port that refuses every connection for as long as this value lives: a TCP
/// socket bound to `127.0.0.1` on a port the kernel picks, never listening.
///
/// Taking a server's port and shutting the server down does not give "a port nobody listens
/// on": the freed port can be handed to a server another test starts meanwhile, which answers.
/// A bound socket keeps the port taken, and Linux answers a connection to a bound
/// socket that does not listen with a reset (`ECONNREFUSED`).
///
/// ```swift
/// let refusing = try RefusingPort()
/// defer { refusing.close() }
/// options.connectTo = ["::127.0.0.1:\(refusing.port)"]
/// ```
public final class RefusingPort: Sendable {
    /// The port every connection to `127.0.0.1` is refused on.
    public let port: Int
    private let socketDescriptor: Mutex<Int32?>

    public init() throws {
        // Close-on-exec: a child that outlives the test must not keep the port taken.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            Glibc.close(fd)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            Glibc.close(fd)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        socketDescriptor = Mutex(fd)
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Frees the port (another socket may take it afterwards). Also done when the value is
    /// released; calling it at the end of a test keeps the port held until then (Swift may
    /// release an object after its last use, before the end of its scope).
    public func close() {
        socketDescriptor.withLock { descriptor in
            if let fd = descriptor { Glibc.close(fd) }
            descriptor = nil
        }
    }

    deinit { close() }
}
