import Hummingbird

/// Turns every error a route or an inner middleware throws into the API's JSON error answer
/// with its status (``ErrorStatus``), and logs it. Nothing else reaches the client: no stack,
/// no error type name, no secret.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let api = ErrorStatus.apiError(for: error)
            if api.status.code >= 500 {
                context.logger.warning("request failed", metadata: ["path": "\(request.uri.path)", "code": "\(api.code)", "status": "\(api.status.code)"])
            }
            return try api.response(from: request, context: context)
        }
    }
}
