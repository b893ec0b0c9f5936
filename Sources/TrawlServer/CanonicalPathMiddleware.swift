import Hummingbird

/// Answers `404 not-found` for any path not in the one spelling the server's routes use, before
/// anything else reads it.
///
/// Hummingbird's router skips empty segments, so `//v1/resolve` and `/v1/resolve/` reach the
/// `/v1/resolve` handler. Every check the server makes is attached to routes, not paths, so such
/// a spelling is checked like the route it reaches; refusing it here as well means each resource
/// has one name and no check, log or metric ever has to normalise. Canonical: starts with `/`,
/// only unreserved characters (`A–Z a–z 0–9 - . _ ~`) between slashes — no escapes, no `;`, no
/// backslash — no empty, `.` or `..` segment, and no trailing `/` (except `/` itself).
struct CanonicalPathMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard Self.isCanonical(path) else {
            var message =
                "'\(ResolveParameters.shown(path))' is not a path of this server (paths are written without empty, '.' or '..' segments, escapes, ';' or a trailing '/')"
            if let suggestion = Self.suggestion(for: path) { message += "; did you mean '\(suggestion)'?" }
            throw APIError(.notFound, code: "not-found", message: message)
        }
        return try await next(request, context)
    }

    static func isCanonical(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        guard bytes.last != UInt8(ascii: "/") else { return false }
        guard bytes.allSatisfy(isAllowed) else { return false }
        return !path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().contains { $0.isEmpty || $0 == "." || $0 == ".." }
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"): true
        default: false
        }
    }

    /// The path with empty and `.` segments dropped and `..` applied, when that is canonical
    /// and differs from it.
    static func suggestion(for path: String) -> String? {
        var segments: [Substring] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": continue
            case "..": _ = segments.popLast()
            default: segments.append(segment)
            }
        }
        let normal = "/" + segments.joined(separator: "/")
        return normal != path && isCanonical(normal) ? normal : nil
    }
}
