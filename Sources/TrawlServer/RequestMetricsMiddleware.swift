import Hummingbird

/// Counts every request by route, method and status once its answer is written (a stream
/// counts when it ends), and how many are in flight. The outermost middleware: it sees the
/// status the client got, errors included.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        metrics.requestsInFlight.increment()
        do {
            var response = try await next(request, context)
            let status = Int(response.status.code)
            let metrics = self.metrics
            response.body = response.body.afterWriting {
                metrics.recordRequest(route: context.endpointPath ?? "unmatched", method: request.method.rawValue, status: status)
                metrics.requestsInFlight.decrement()
            }
            return response
        } catch {
            // The error middleware inside answers every error; this is for one that escaped it.
            metrics.recordRequest(route: context.endpointPath ?? "unmatched", method: request.method.rawValue, status: 500)
            metrics.requestsInFlight.decrement()
            throw error
        }
    }
}

extension ResponseBody {
    /// This body, then `done` once it is written (or failed to be): a stream counts when it ends.
    func afterWriting(_ done: @escaping @Sendable () -> Void) -> ResponseBody {
        let body = self
        return ResponseBody(contentLength: contentLength) { writer in
            do {
                try await body.write(writer)
                done()
            } catch {
                done()
                throw error
            }
        }
    }
}
