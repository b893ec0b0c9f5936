public import TrawlCore
public import TrawlFetch

/// A server configuration that would be unsafe to start: bound to an address others can reach
/// with no token and no explicit `--no-auth`.
public struct ServerConfigurationError: Error, Sendable, Hashable, CustomStringConvertible, CodedError {
    public var message: String
    public var description: String { message }
    /// `unsafe-configuration`.
    public var errorCode: String { "unsafe-configuration" }
}

extension ServerConfiguration {
    /// Whether ``host`` binds only addresses this machine alone can reach (see
    /// `bindAddresses(resolving:)`).
    public var bindsLoopbackOnly: Bool { bindsLoopbackOnly(resolving: Self.systemLookUp) }

    /// Whether every one of `addresses` is loopback (`127.0.0.0/8`, `::1`), and there is at
    /// least one: the decision the bind check makes on what ``host`` resolves to. `0.0.0.0`,
    /// `::` and every other address are others' to reach.
    public static func isLoopbackOnly(_ addresses: [IPAddress]) -> Bool {
        !addresses.isEmpty && addresses.allSatisfy { address in loopback.contains { $0.contains(address) } }
    }

    /// The addresses binding ``host`` listens on: an address literal as it is (`::1` is never
    /// looked up); a name as the system resolves it — `localhost` and names under it included,
    /// since `/etc/hosts` or DNS may point `anyaddr.localhost` at `0.0.0.0` —; `nil` for a name
    /// it does not resolve.
    func bindAddresses(resolving lookUp: (String) throws -> [IPAddress]) -> [IPAddress]? {
        if let literal = IPAddress(literal: Self.bare(host)) { return [literal] }
        return try? lookUp(host)
    }

    /// Whether ``host`` binds loopback only, by the addresses it binds: a name other than
    /// `localhost` or one under it is taken as public without a lookup (it is meant for others,
    /// and the check never waits on DNS).
    func bindsLoopbackOnly(resolving lookUp: (String) throws -> [IPAddress]) -> Bool {
        Self.isLoopbackOnly(judgedAddresses(resolving: lookUp) ?? [])
    }

    /// The addresses the bind check judges: `bindAddresses(resolving:)` for an address literal
    /// and for `localhost` or a name under it; `nil` for any other name (never looked up).
    func judgedAddresses(resolving lookUp: (String) throws -> [IPAddress]) -> [IPAddress]? {
        IPAddress(literal: Self.bare(host)) != nil || isLoopbackName ? bindAddresses(resolving: lookUp) : nil
    }

    /// `localhost`, `localhost.` or a name under it: loopback by RFC 6761, if the resolver agrees.
    var isLoopbackName: Bool {
        var name = host.lowercased()
        while name.hasSuffix(".") { name.removeLast() }
        return name == "localhost" || name.hasSuffix(".localhost")
    }

    /// The address the server binds: ``host`` itself when it is an address, otherwise the one
    /// its name resolved to when the bind was checked (IPv4 first), so that what is bound is
    /// what was judged; a name that does not resolve is left to the bind, which says so.
    func listeningHost(resolving lookUp: (String) throws -> [IPAddress] = Self.systemLookUp) -> String {
        if let literal = IPAddress(literal: Self.bare(host)) { return literal.description }
        guard let addresses = bindAddresses(resolving: lookUp), let first = addresses.first(where: { $0.bitWidth == 32 }) ?? addresses.first else {
            return host
        }
        return first.description
    }

    /// `[::1]` → `::1`.
    static func bare(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    static let systemLookUp: @Sendable (String) throws -> [IPAddress] = { try SystemHostResolver.lookUp($0, port: 0) }

    private static let loopback: [AddressRange] = ["127.0.0.0/8", "::1/128"].compactMap { try? AddressRange(parsing: $0) }

    /// Refuses a configuration that would open the API to the network without a token.
    /// - Throws: ``ServerConfigurationError`` naming the address and the ways out.
    public func checkSafety() throws {
        try checkSafety(resolving: Self.systemLookUp)
    }

    func checkSafety(resolving lookUp: (String) throws -> [IPAddress]) throws {
        guard limits.token == nil, !limits.allowsNoAuthOnPublicBind else { return }
        let addresses = judgedAddresses(resolving: lookUp)
        guard !Self.isLoopbackOnly(addresses ?? []) else { return }
        var resolved = ""
        if isLoopbackName, IPAddress(literal: Self.bare(host)) == nil {
            resolved = addresses.map { " (it resolves to \($0.map(\.description).joined(separator: ", ")))" } ?? " (it resolves to no address)"
        }
        throw ServerConfigurationError(
            message:
                "refusing to serve on \(host)\(resolved) without a token: anyone who can reach it could use the API. Give --token (or TRAWL_SERVE_TOKEN), or --no-auth to serve it open anyway"
        )
    }
}
