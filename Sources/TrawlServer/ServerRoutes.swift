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

    /// The methods the server knows, for the `405` answers.
    static let knownMethods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options, .trace]

    /// `Allow` for a path that takes `methods`.
    static func allow(_ methods: [HTTPRequest.Method]) -> String {
        var allowed = methods
        if allowed.contains(.get) { allowed.append(.head) }
        allowed.append(.options)
        return allowed.map(\.rawValue).joined(separator: ", ")
    }

    /// Adds, for every path of the table, an answer to each known method it does not take:
    /// `204` with `Allow` to `OPTIONS`, `405 method-not-allowed` with `Allow` to the others.
    static func addMethodAnswers(to router: some RouterMethods<ServerRequestContext>) {
        for (path, methods) in table {
            let allow = allow(methods)
            for method in knownMethods where !methods.contains(method) && !(method == .head && methods.contains(.get)) {
                if method == .options {
                    router.on(RouterPath(path), method: .options) { _, _ in Response(status: .noContent, headers: [.allow: allow]) }
                } else {
                    router.on(RouterPath(path), method: method) { request, _ -> Response in
                        throw APIError(
                            .methodNotAllowed, code: "method-not-allowed",
                            message: "\(path) does not take \(request.method.rawValue); it takes \(allow)",
                            headers: [.allow: allow])
                    }
                }
            }
        }
    }
}
