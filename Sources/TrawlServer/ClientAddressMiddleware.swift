import HTTPTypes
import Hummingbird
import TrawlFetch

/// Sets ``ServerRequestContext/clientKey`` to the client a request really comes from.
///
/// Behind a reverse proxy every request arrives from the proxy's address, so keying limits by
/// the socket would put every client in one bucket. A request from a peer inside
/// ``ServerLimits/trustedProxies`` is counted against the address its `X-Forwarded-For` names:
/// the list is read from the right, skipping trusted proxies, and the first other address is
/// the client (entries further left were written by the client itself and prove nothing). A
/// request from any other peer is counted against that peer, whatever it claims.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let trustedProxies: [AddressRange]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !trustedProxies.isEmpty, let peer = context.remoteAddress?.ipAddress.flatMap(IPAddress.init(literal:)),
            isTrusted(peer)
        else { return try await next(request, context) }
        var context = context
        context.clientKey = forwardedClient(request.headers[values: .xForwardedFor]) ?? context.clientKey
        return try await next(request, context)
    }

    /// The client key (``ClientKey``) of the rightmost address of the `X-Forwarded-For` values
    /// that is not a trusted proxy; `nil` when there is none or one is not an address.
    func forwardedClient(_ values: [String]) -> String? {
        let hops = values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() {
            guard let address = IPAddress(literal: HostCheckMiddleware<Context>.hostPart(hop)) else { return nil }
            if !isTrusted(address) { return ClientKey.of(address) }
        }
        return nil
    }

    private func isTrusted(_ address: IPAddress) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }

}

extension HTTPField.Name {
    static let xForwardedFor = Self("X-Forwarded-For")!
}
