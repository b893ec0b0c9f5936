import Glibc

/// An IPv4 or IPv6 address as a number: what the address guard compares against ranges.
///
/// Build one from text with ``init(literal:)`` (strict: dotted quad or RFC 4291 text) or from
/// a URL's host with ``init(host:)`` (every form libcurl accepts: `2130706433`, `0x7f.1`,
/// `[::1]`, `[fe80::1%25eth0]`, `127.0.0.1.`).
public enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    case v4(UInt32)
    case v6(UInt128)

    /// The address in canonical text: `127.0.0.1`, `::ffff:127.0.0.1`, `fe80::1`.
    public var description: String {
        switch self {
        case .v4(let value):
            return "\(value >> 24).\(value >> 16 & 0xff).\(value >> 8 & 0xff).\(value & 0xff)"
        case .v6:
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            // inet_ntop fails only for an unknown family or a short buffer, neither possible here.
            guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return "invalid" }
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// The address in network byte order: 4 or 16 bytes.
    public var bytes: [UInt8] {
        switch self {
        case .v4(let value): (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
        case .v6(let value): (0..<16).map { UInt8(truncatingIfNeeded: value >> (120 - 8 * $0)) }
        }
    }

    /// Bits in the address: 32 or 128.
    public var bitWidth: Int {
        switch self {
        case .v4: 32
        case .v6: 128
        }
    }

    /// The address in a `sockaddr` that libcurl or getaddrinfo filled in, or `nil` for another
    /// family (or a length too short for its family).
    init?(socketAddress: UnsafePointer<sockaddr>, length: Int) {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET where length >= MemoryLayout<sockaddr_in>.size:
            let address = UnsafeRawPointer(socketAddress).loadUnaligned(as: sockaddr_in.self)
            self = .v4(UInt32(bigEndian: address.sin_addr.s_addr))
        case AF_INET6 where length >= MemoryLayout<sockaddr_in6>.size:
            let address = UnsafeRawPointer(socketAddress).loadUnaligned(as: sockaddr_in6.self)
            self = withUnsafeBytes(of: address.sin6_addr) { Self(v6Bytes: $0) }
        default:
            return nil
        }
    }

    /// Sixteen bytes in network order.
    init(v6Bytes bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count == 16)
        self = .v6(bytes.reduce(UInt128(0)) { $0 << 8 | UInt128($1) })
    }
}
