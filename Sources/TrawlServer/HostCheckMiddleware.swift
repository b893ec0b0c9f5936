import HTTPTypes
import Hummingbird
import TrawlFetch

/// Answers `421 unknown-host` to a request whose `Host` names a server other than this one.
///
/// DNS rebinding points a name the attacker controls at this server's address, so a page on
/// that name can call the API from a visitor's browser as if it were on the same origin. The
/// browser still sends the attacker's name as `Host`, which is what this checks: a request is
/// served when its `Host` is an IP address literal (a browser only sends one when the page's own
/// origin is that address), a loopback name (`localhost`, `*.localhost`: browsers resolve them
/// to loopback themselves), the name the server was bound to, or one of the names given with
/// `--public-host`. A request without `Host` (HTTP/1.0) is served; one with two `Host` headers
/// is `400 malformed-request` (RFC 9112 §3.2: a proxy and this server could each read the
/// other one).
struct HostCheckMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Lower-case names without a trailing dot.
    let names: Set<String>

    init(bindHost: String, publicHosts: [String]) {
        var names = Set(publicHosts.map(Self.normalised))
        if IPAddress(literal: bindHost) == nil { names.insert(Self.normalised(bindHost)) }
        self.names = names
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The first `Host` is the request's authority; any other is left among its fields.
        guard request.headers[values: hostField].isEmpty else {
            throw APIError(.badRequest, code: "malformed-request", message: "the request has more than one Host header; send exactly one")
        }
        guard let host = request.head.authority else { return try await next(request, context) }
        guard allows(host) else {
            throw APIError(
                .misdirectedRequest, code: "unknown-host",
                message: "'\(ResolveParameters.shown(host))' is not a name of this server; start it with --public-host NAME to answer to that name")
        }
        return try await next(request, context)
    }

    /// Whether `authority` (`host[:port]`) names this server.
    func allows(_ authority: String) -> Bool {
        let host = Self.normalised(Self.hostPart(authority))
        if host.isEmpty { return false }
        if IPAddress(literal: host) != nil { return true }
        if host == "localhost" || host.hasSuffix(".localhost") { return true }
        return names.contains(host)
    }

    /// `example.com:8080` → `example.com`, `[::1]:80` → `::1`; a bare IPv6 address as it is.
    static func hostPart(_ authority: String) -> String {
        if authority.hasPrefix("[") {
            guard let end = authority.firstIndex(of: "]") else { return "" }
            return String(authority[authority.index(after: authority.startIndex)..<end])
        }
        if authority.filter({ $0 == ":" }).count == 1, let colon = authority.firstIndex(of: ":") { return String(authority[..<colon]) }
        return authority
    }

    static func normalised(_ name: String) -> String {
        var name = name.lowercased()
        while name.hasSuffix(".") { name.removeLast() }
        return name
    }
}

/// `Host` as a field: the first `Host` of a request is its authority, any other stays a field.
private let hostField = HTTPField.Name("Host")!
