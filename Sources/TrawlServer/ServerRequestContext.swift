import Hummingbird
import NIOCore

/// The context every request of `trawl serve` carries: Hummingbird's core storage and the
/// client's address (what the rate limit counts by).
public struct ServerRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connected client; `nil` in router-level tests, which have no socket.
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// Who the rate limit counts a request against: the client's IP address.
    var clientKey: String { remoteAddress?.ipAddress ?? "local" }
}
