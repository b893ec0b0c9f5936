import TrawlFetch

/// Who a client is, for the limits: its IPv4 address, or its IPv6 /64.
///
/// One IPv6 subscriber is routed a whole /64 (often more) and may use any address in it, so
/// keying by the address would give one machine 2^64 buckets, sessions and batch allowances.
/// An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is its IPv4 address.
enum ClientKey {
    static func of(_ address: IPAddress) -> String {
        switch address {
        case .v4:
            return address.description
        case .v6(let value):
            if value >> 32 == 0xffff { return IPAddress.v4(UInt32(truncatingIfNeeded: value)).description }
            let prefix = IPAddress.v6(value & ~UInt128(0) << 64)
            return "\(prefix)/64"
        }
    }

    /// The key of a peer's address as text (a socket's), the text itself when it is not one.
    static func of(_ text: String) -> String {
        IPAddress(literal: text).map { of($0) } ?? text
    }
}
