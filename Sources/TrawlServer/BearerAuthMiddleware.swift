import Hummingbird

/// `Authorization: Bearer TOKEN` on the routes it is attached to; anything else is
/// `401 unauthorized`.
///
/// It is attached to route groups (the API, `/metrics`), so it guards the routes the router
/// matched, whatever spelling of the path reached them. Each refused attempt is charged to the
/// client's rate-limit bucket when a ``limiter`` is given: guessing is as slow as the rate, and
/// a client over it is answered `429` before its guess is even compared.
struct BearerAuthMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let token: String
    /// Charged once per refused attempt; `nil` where the rate limit already counts every request.
    var limiter: RateLimiter?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method != .options else { return try await next(request, context) }
        let given = request.headers[.authorization].flatMap { value -> Substring? in
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
            return parts[1]
        }
        guard let given, Self.constantTimeEqual(Array(given.utf8), Array(token.utf8)) else {
            if let limiter, case .limited(let retryAfter) = limiter.admit(context.clientKey) {
                throw RateLimitMiddleware.limited(retryAfter: retryAfter)
            }
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
