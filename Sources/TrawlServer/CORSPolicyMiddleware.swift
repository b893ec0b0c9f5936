import Hummingbird

/// Cross-origin access for browser apps: answers preflight `OPTIONS` requests and adds
/// `Access-Control-Allow-Origin` to answers (errors included) for an allowed origin. With no
/// origins configured it adds nothing, so browsers keep other sites' pages out.
struct CORSPolicyMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Allowed origins; `*` allows any.
    let origins: [String]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], let allowed = allowedOrigin(origin) else {
            return try await next(request, context)
        }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            var headers = HTTPFields()
            headers[.accessControlAllowOrigin] = allowed
            headers[.accessControlAllowMethods] = "GET, HEAD, POST, DELETE, OPTIONS"
            headers[.accessControlAllowHeaders] = "Authorization, Content-Type, Accept"
            headers[.accessControlMaxAge] = "600"
            if allowed != "*" { headers[.vary] = "Origin" }
            return Response(status: .noContent, headers: headers)
        }
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = allowed
        response.headers[.accessControlExposeHeaders] = "Retry-After"
        if allowed != "*" { response.headers[.vary] = "Origin" }
        return response
    }

    /// The `Access-Control-Allow-Origin` value for `origin`, or `nil` when it is not allowed.
    func allowedOrigin(_ origin: String) -> String? {
        if origins.contains("*") { return "*" }
        return origins.contains(origin) ? origin : nil
    }
}
