import Hummingbird

/// Every path the server answers and the methods each takes, as `docs/openapi.yaml` lists them.
///
/// Hummingbird answers a known path with an unknown method `404`, as if the path did not exist;
/// this table lets the server say `405 method-not-allowed` with `Allow` instead (and answer
/// `OPTIONS` with `Allow`). `HEAD` is answered wherever `GET` is.
enum ServerRoutes {
    static let table: [(path: String, methods: [HTTPRequest.Method])] = [
        ("/", [.get]),
        ("/healthz", [.get]),
        ("/metrics", [.get]),
        ("/v1/resolve", [.get]),
        ("/v1/sessions", [.post]),
        ("/v1/sessions/{id}", [.get, .delete]),
        ("/v1/sessions/{id}/query", [.post]),
        ("/v1/sessions/{id}/more", [.post]),
        ("/v1/sessions/{id}/events", [.get]),
        ("/v1/batches", [.post]),
        ("/v1/batches/{id}", [.get, .delete]),
        ("/v1/batches/{id}/results", [.get]),
    ]

    /// `Allow` for a path that takes `methods`.
    static func allow(_ methods: [HTTPRequest.Method]) -> String {
        var allowed = methods
        if allowed.contains(.get) { allowed.append(.head) }
        allowed.append(.options)
        return allowed.map(\.rawValue).joined(separator: ", ")
    }

    /// The methods of the route `path` is an instance of (`{id}` matches one segment), or
    /// `nil` when it is no route's.
    static func methods(for path: String) -> [HTTPRequest.Method]? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        return table.first { route in
            let pattern = route.path.split(separator: "/", omittingEmptySubsequences: false)
            return pattern.count == segments.count
                && zip(pattern, segments).allSatisfy { pattern, segment in
                    pattern.hasPrefix("{") ? !segment.isEmpty : pattern == segment
                }
        }?.methods
    }
}

/// Turns "no route for this method" into the answer HTTP has for it: a path of the table with a
/// method it does not take is `405 method-not-allowed` with `Allow` (whatever the method:
/// `PUT`, `TRACE`, `QUERY`…), and `OPTIONS` on it is `204` with `Allow`. Paths of no route stay
/// `404`.
struct MethodAnswerMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            guard let methods = ServerRoutes.methods(for: request.uri.path), !methods.contains(request.method) else { throw error }
            let allow = ServerRoutes.allow(methods)
            if request.method == .options { return Response(status: .noContent, headers: [.allow: allow]) }
            throw APIError(
                .methodNotAllowed, code: "method-not-allowed",
                message: "\(request.uri.path) does not take \(request.method.rawValue); it takes \(allow)",
                headers: [.allow: allow])
        }
    }
}
