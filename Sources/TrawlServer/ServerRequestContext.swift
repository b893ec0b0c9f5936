public import Hummingbird
public import NIOCore

/// The context every request of `trawl serve` carries: Hummingbird's core storage, the
/// connected peer, and the client the server counts the request against.
public struct ServerRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connected peer; `nil` in router-level tests, which have no socket.
    public let remoteAddress: SocketAddress?
    /// Who the rate limit and the per-client caps count this request against (``ClientKey``):
    /// the peer, or the client a trusted proxy forwarded it for (``ClientAddressMiddleware``).
    var clientKey: String

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        clientKey = remoteAddress?.ipAddress.map { ClientKey.of($0) } ?? "local"
    }
}
