import Hummingbird

/// Applies the per-client ``RateLimiter`` to the routes it is attached to (the API): over the
/// limit is `429 rate-limited` with `Retry-After`. It runs before the bearer token is checked,
/// so refused guesses count too. The page, `/healthz` and `/metrics` are not counted (monitors
/// poll them; a wrong token on `/metrics` is charged by ``BearerAuthMiddleware``).
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method != .options else { return try await next(request, context) }
        if case .limited(let retryAfter) = limiter.admit(context.clientKey) {
            throw Self.limited(retryAfter: retryAfter)
        }
        return try await next(request, context)
    }

    static func limited(retryAfter: Int) -> APIError {
        APIError(
            .tooManyRequests, code: "rate-limited",
            message: "too many requests from this client; try again in \(retryAfter) s",
            headers: [.retryAfter: String(retryAfter)])
    }
}
