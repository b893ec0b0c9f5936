import Foundation
import HTTPTypes
import Hummingbird

/// Refuses an API request a browser sent on behalf of a page on another site:
/// `403 cross-origin-refused`, whatever the method.
///
/// A page on any site can make a visitor's browser send a request without asking first — an
/// `<img src>` or a link is a `GET`, a form post or a `fetch` with a `text/plain` body a `POST` —
/// and the answer's CORS headers only stop the page from reading the reply, not the request
/// from having its effect: a batch started, a session opened, a page fetched by the server and
/// written to its index (`!local`). Browsers say where a request comes from: `Origin` on every
/// write and on every cross-origin `fetch`, and `Sec-Fetch-Site` on every request (`cross-site`
/// for an `<img>` on another site's page, which carries no `Origin`). A request is served when
///
/// - its `Origin` is this server's own authority (the web page) or one of
///   ``ServerLimits/corsOrigins`` (or these are `*`), or
/// - it has no `Origin` and its `Sec-Fetch-Site` is absent (curl, apps, other servers),
///   `same-origin` (the web page) or `none` (an address typed into the browser).
///
/// `same-site` counts as another site: a page on another port of this host is another program.
struct CrossSiteRequestMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let corsOrigins: [String]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let refusal = refusal(origin: request.headers[.origin], fetchSite: request.headers[Self.secFetchSite], host: request.head.authority) {
            throw APIError(.forbidden, code: "cross-origin-refused", message: refusal)
        }
        return try await next(request, context)
    }

    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!

    /// Why a request from `origin` (its `Origin`) with `fetchSite` (its `Sec-Fetch-Site`) to
    /// `host` (its `Host`) is refused, or `nil` when it is served.
    func refusal(origin: String?, fetchSite: String?, host: String?) -> String? {
        if corsOrigins.contains("*") { return nil }
        if let origin {
            guard isAllowed(origin: origin, host: host) else {
                return "a page on '\(ResolveParameters.shown(origin))' may not use this server's API (start it with --cors-origin to allow that origin)"
            }
            return nil
        }
        guard let fetchSite else { return nil }
        switch fetchSite.trimmingCharacters(in: .whitespaces).lowercased() {
        case "same-origin", "none": return nil
        default:
            return "a page on another site may not use this server's API (Sec-Fetch-Site: \(ResolveParameters.shown(fetchSite))); "
                + "start it with --cors-origin to allow a site's pages"
        }
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
