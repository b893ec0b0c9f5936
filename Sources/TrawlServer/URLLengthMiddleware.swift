import Hummingbird

/// Refuses a request whose target (path and query) is longer than the limit with
/// `413 url-too-long`, before any route reads it.
struct URLLengthMiddleware<Context: RequestContext>: RouterMiddleware {
    let maxLength: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let length = request.uri.description.utf8.count
        guard length <= maxLength else {
            throw APIError(.contentTooLarge, code: "url-too-long", message: "the request URL is \(length) bytes long; the limit is \(maxLength)")
        }
        return try await next(request, context)
    }
}
