/// Which addresses the fetch layer may connect to: the guard against server-side request
/// forgery, for anything that fetches URLs strangers hand it.
///
/// ``allowAll`` (the default) connects anywhere. ``denyPrivate`` refuses every address that is
/// not a public destination (see ``AddressClass``) — loopback, RFC 1918, link-local with cloud
/// metadata, CGNAT, multicast, reserved — also in the IPv6 forms that carry an IPv4 address
/// (`::ffff:127.0.0.1`, `64:ff9b::a9fe:a9fe`, `2002:7f00:1::`), and IPv6 outside the global
/// unicast block `2000::/3`. ``allowing(_:)`` opens a block
/// deliberately:
///
/// ```swift
/// var configuration = LoaderConfiguration()
/// configuration.addressPolicy = .denyPrivate.allowing(try AddressRange(parsing: "10.1.2.0/24"))
/// ```
///
/// A ``Loader`` checks the address of every connection it opens — after DNS, after each
/// redirect, after `connectTo` — as the socket is made, so nothing can change between the check
/// and the connect. A refusal is a ``FetchError`` with code ``FetchError/Code/refusedAddress``
/// naming the host.
public struct AddressPolicy: Sendable, Hashable, CustomStringConvertible {
    /// Whether non-public addresses are refused.
    public private(set) var deniesPrivate: Bool
    /// Blocks connected to even when ``deniesPrivate`` would refuse them.
    public private(set) var allowedRanges: [AddressRange]

    /// Every address may be connected to.
    public static let allowAll = AddressPolicy(deniesPrivate: false, allowedRanges: [])
    /// Only public addresses may be connected to.
    public static let denyPrivate = AddressPolicy(deniesPrivate: true, allowedRanges: [])

    /// This policy with `range` allowed as well.
    public func allowing(_ range: AddressRange) -> AddressPolicy {
        var policy = self
        if !policy.allowedRanges.contains(range) { policy.allowedRanges.append(range) }
        return policy
    }

    /// Whether this policy ever refuses anything (a transfer under ``allowAll`` is not guarded).
    public var isGuarding: Bool { deniesPrivate }

    /// May a connection go to `address`?
    public func decision(for address: IPAddress) -> AddressDecision {
        guard deniesPrivate else { return .allowed }
        let carried = address.embeddedIPv4
        if allowedRanges.contains(where: { $0.contains(address) || carried.map($0.contains) == true }) { return .allowed }
        if let kind = AddressClass.of(address) ?? carried.flatMap(AddressClass.of) { return .refused(kind) }
        // IPv6 outside 2000::/3 (global unicast) is unassigned or special, unless it carries a
        // public IPv4 address.
        if case .v6(let value) = address, value >> 125 != 1, carried == nil { return .refused(.reserved) }
        return .allowed
    }

    /// The decision for a URL's host without looking it up: for an address in any form libcurl
    /// reads (``IPAddress/init(host:)``), and for the names RFC 6761 reserves for loopback
    /// (`localhost`, `*.localhost`, any case, with or without the final dot) when loopback is
    /// refused — a resolver that answered them could only say loopback, or lie. `nil` for any
    /// other name, decided only once it is resolved.
    public func decision(forHost host: String) -> AddressDecision? {
        if let address = IPAddress(host: host) { return decision(for: address) }
        if deniesPrivate, Self.isLoopbackName(host),
            !decision(for: Self.loopbackV4).isAllowed, !decision(for: Self.loopbackV6).isAllowed
        {
            return .refused(.loopback)
        }
        return nil
    }

    /// `localhost` and names under it (RFC 6761 §6.3), in any case, with or without the
    /// final dot.
    public static func isLoopbackName(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return name == "localhost" || name.hasSuffix(".localhost")
    }

    private static let loopbackV4 = IPAddress(host: "127.0.0.1")!
    private static let loopbackV6 = IPAddress(host: "[::1]")!

    public var description: String {
        guard deniesPrivate else { return "allow all" }
        return allowedRanges.isEmpty ? "deny private" : "deny private, allow \(allowedRanges.map(\.description).joined(separator: ", "))"
    }
}

/// What an ``AddressPolicy`` says about one address.
public enum AddressDecision: Sendable, Hashable {
    case allowed
    /// Refused, and the block that made it so.
    case refused(AddressClass)

    public var isAllowed: Bool { self == .allowed }
}
