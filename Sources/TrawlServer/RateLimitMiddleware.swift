import Hummingbird

/// Applies the per-client ``RateLimiter`` to `/v1/…`: over the limit is `429 rate-limited`
/// with `Retry-After`. The page, `/healthz` and `/metrics` are not counted (monitors poll them).
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path.hasPrefix("/v1/"), request.method != .options else { return try await next(request, context) }
        if case .limited(let retryAfter) = limiter.admit(context.clientKey) {
            throw APIError(
                .tooManyRequests, code: "rate-limited",
                message: "too many requests from this client; try again in \(retryAfter) s",
                headers: [.retryAfter: String(retryAfter)])
        }
        return try await next(request, context)
    }
}
