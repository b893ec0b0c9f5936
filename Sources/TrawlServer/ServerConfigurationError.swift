public import TrawlCore
import TrawlFetch

/// A server configuration that would be unsafe to start: bound to an address others can reach
/// with no token and no explicit `--no-auth`.
public struct ServerConfigurationError: Error, Sendable, Hashable, CustomStringConvertible, CodedError {
    public var message: String
    public var description: String { message }
    /// `unsafe-configuration`.
    public var errorCode: String { "unsafe-configuration" }
}

extension ServerConfiguration {
    /// Whether ``host`` is a loopback address or name: only this machine can connect.
    public var bindsLoopbackOnly: Bool {
        let name = host.lowercased()
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        guard let address = IPAddress(literal: name) else { return false }
        return Self.loopback.contains { $0.contains(address) }
    }

    private static let loopback: [AddressRange] = ["127.0.0.0/8", "::1/128"].compactMap { try? AddressRange(parsing: $0) }

    /// Refuses a configuration that would open the API to the network without a token.
    /// - Throws: ``ServerConfigurationError`` naming the address and the ways out.
    public func checkSafety() throws {
        guard !bindsLoopbackOnly, limits.token == nil, !limits.allowsNoAuthOnPublicBind else { return }
        throw ServerConfigurationError(
            message:
                "refusing to serve on \(host) without a token: anyone who can reach it could use the API. Give --token (or TRAWL_SERVE_TOKEN), or --no-auth to serve it open anyway"
        )
    }
}
