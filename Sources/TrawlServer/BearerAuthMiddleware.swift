import Hummingbird

/// With a token configured, `/v1/…` and `/metrics` need `Authorization: Bearer TOKEN`;
/// anything else is `401 unauthorized`. The page, its assets and `/healthz` stay open (a load
/// balancer's health check has no token; the page asks for one when the API says 401).
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard ServerRoutes.isProtected(request.uri.path), request.method != .options else { return try await next(request, context) }
        let given = request.headers[.authorization].flatMap { value -> Substring? in
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
            return parts[1]
        }
        guard let given, Self.constantTimeEqual(Array(given.utf8), Array(token.utf8)) else {
            throw APIError(
                .unauthorized, code: "unauthorized",
                message: given == nil ? "this server needs 'Authorization: Bearer TOKEN'" : "the bearer token is not this server's",
                headers: [.wwwAuthenticate: "Bearer realm=\"trawl\""])
        }
        return try await next(request, context)
    }

    /// Compares without stopping at the first difference, so the time taken says nothing of
    /// how much of a guess was right.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }
}
