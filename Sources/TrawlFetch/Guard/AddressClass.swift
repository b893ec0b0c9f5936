/// Why an address is not a public destination: the special-purpose blocks
/// (IANA's IPv4 and IPv6 special-purpose registries) that ``AddressPolicy/denyPrivate`` refuses.
public enum AddressClass: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `0.0.0.0/8`, `::` — "this host" to many stacks, so a way to reach loopback.
    case unspecified
    /// `127.0.0.0/8`, `::1`.
    case loopback
    /// RFC 1918: `10/8`, `172.16/12`, `192.168/16`.
    case privateUse = "private"
    /// RFC 6598 `100.64.0.0/10`: carrier-grade NAT, inside a provider's network.
    case sharedAddressSpace = "shared (CGNAT)"
    /// `169.254.0.0/16` (cloud metadata at 169.254.169.254), `fe80::/10`.
    case linkLocal = "link-local"
    /// `fc00::/7` (unique local) and the deprecated site-local `fec0::/10`.
    case uniqueLocal = "unique local"
    /// `224.0.0.0/4`, `ff00::/8`.
    case multicast
    /// `255.255.255.255`.
    case broadcast
    /// `240.0.0.0/4`, the IETF protocol block `192.0.0.0/24`, and IPv6 outside `2000::/3`.
    case reserved
    /// The TEST-NETs and `2001:db8::/32`: never routed.
    case documentation
    /// `198.18.0.0/15`, `2001:2::/48`: benchmarking, often used inside networks.
    case benchmarking
    /// `100::/64`: discard-only.
    case discard
    /// `64:ff9b:1::/48`: local-use NAT64, a way into a private network.
    case localTranslation = "local NAT64"

    public var description: String { rawValue }

    /// The class of `address` itself, not looking into IPv6 forms that carry an IPv4 address.
    static func of(_ address: IPAddress) -> AddressClass? {
        table.first { $0.range.contains(address) }?.kind
    }

    /// Most specific blocks first (broadcast lies inside reserved).
    private static let table: [(range: AddressRange, kind: AddressClass)] =
        ([
            ("0.0.0.0/8", .unspecified), ("127.0.0.0/8", .loopback), ("10.0.0.0/8", .privateUse), ("172.16.0.0/12", .privateUse),
            ("192.168.0.0/16", .privateUse), ("100.64.0.0/10", .sharedAddressSpace), ("169.254.0.0/16", .linkLocal),
            ("192.0.0.0/24", .reserved), ("192.0.2.0/24", .documentation), ("198.51.100.0/24", .documentation),
            ("203.0.113.0/24", .documentation), ("198.18.0.0/15", .benchmarking), ("224.0.0.0/4", .multicast),
            ("255.255.255.255/32", .broadcast), ("240.0.0.0/4", .reserved),
            ("::/128", .unspecified), ("::1/128", .loopback), ("fc00::/7", .uniqueLocal), ("fec0::/10", .uniqueLocal),
            ("fe80::/10", .linkLocal), ("ff00::/8", .multicast), ("2001:db8::/32", .documentation), ("2001:2::/48", .benchmarking), ("100::/64", .discard),
            ("64:ff9b:1::/48", .localTranslation),
        ] as [(String, AddressClass)]).map { text, kind in
            // Constant text, checked by the tests: a typo here is a programming error.
            (try! AddressRange(parsing: text), kind)
        }
}

extension IPAddress {
    /// The IPv4 address an IPv6 address carries and delivers to: IPv4-mapped `::ffff:a.b.c.d`,
    /// IPv4-translated `::ffff:0:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`,
    /// 6to4 `2002:AABB:CCDD::/48` and Teredo `2001:0::/32` (the client address, inverted).
    /// `nil` for an IPv4 address or an IPv6 address of no such form.
    public var embeddedIPv4: IPAddress? {
        guard case .v6(let value) = self else { return nil }
        let low = UInt32(truncatingIfNeeded: value)
        switch value >> 32 {
        case 0xffff, 0xffff_0000, 0x0064_ff9b_0000_0000_0000_0000: return .v4(low)
        // `::` and `::1` are their own classes; `::a.b.c.d` covers the rest of `::/96`.
        case 0 where value > 1: return .v4(low)
        default: break
        }
        if value >> 112 == 0x2002 { return .v4(UInt32(truncatingIfNeeded: value >> 80)) }
        if value >> 96 == 0x2001_0000 { return .v4(~low) }
        return nil
    }
}
