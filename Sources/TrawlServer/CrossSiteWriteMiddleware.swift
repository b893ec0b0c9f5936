import Hummingbird

/// Refuses a request that would change something (`POST`, `PUT`, `PATCH`, `DELETE`) when a
/// browser sent it from a page on another origin that the server does not allow:
/// `403 cross-origin-refused`.
///
/// A page on any site can make a visitor's browser send a "simple" request — a form post, or a
/// `fetch` with a `text/plain` body — without asking first, and the answer's CORS headers only
/// stop the page from reading the reply, not the request from having its effect (a batch
/// started, a session opened). Browsers name the page's origin in `Origin` on every such
/// request, so a write is served only when it has no `Origin` (curl, apps, other servers), an
/// `Origin` on this server's own authority (the web page), or one of ``ServerLimits/corsOrigins``.
struct CrossSiteWriteMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let corsOrigins: [String]

    static let writeMethods: Set<HTTPRequest.Method> = [.post, .put, .patch, .delete]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.writeMethods.contains(request.method), let origin = request.headers[.origin] else {
            return try await next(request, context)
        }
        guard isAllowed(origin: origin, host: request.head.authority) else {
            throw APIError(
                .forbidden, code: "cross-origin-refused",
                message:
                    "a page on '\(ResolveParameters.shown(origin))' may not change anything on this server (start it with --cors-origin to allow that origin)")
        }
        return try await next(request, context)
    }

    func isAllowed(origin: String, host: String?) -> Bool {
        if corsOrigins.contains("*") || corsOrigins.contains(origin) { return true }
        guard let host, let authority = Self.authority(ofOrigin: origin) else { return false }
        return authority == Self.withoutDefaultPort(host.lowercased(), scheme: nil)
    }

    /// `https://Example.com:443` → `example.com`; `null` and anything not http(s) → `nil`.
    static func authority(ofOrigin origin: String) -> String? {
        let lower = origin.lowercased()
        for scheme in ["http", "https"] where lower.hasPrefix(scheme + "://") {
            let authority = String(lower.dropFirst(scheme.count + 3))
            guard !authority.isEmpty, !authority.contains("/") else { return nil }
            return withoutDefaultPort(authority, scheme: scheme)
        }
        return nil
    }

    /// Drops `:80` and `:443`: the `Host` a browser sends for a default port has none.
    static func withoutDefaultPort(_ authority: String, scheme: String?) -> String {
        for (port, portScheme) in [(":80", "http"), (":443", "https")] where authority.hasSuffix(port) && (scheme == nil || scheme == portScheme) {
            return String(authority.dropLast(port.count))
        }
        return authority
    }
}
