/// Runs a route's work against the request timeout: when time is up the work is cancelled
/// (down to libcurl's transfers and the browser's pages) and the request is answered
/// `504 request-timed-out`.
///
/// Routes call it around their own work rather than a middleware wrapping every route:
/// Hummingbird's `next` cannot leave the middleware's task, and a streaming answer keeps
/// working after its head is sent.
enum RequestDeadline {
    static func run<Value: Sendable>(_ timeout: Duration, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw APIError.requestTimedOut(timeout)
            }
            return value
        }
    }
}

extension APIError {
    static func requestTimedOut(_ timeout: Duration) -> APIError {
        APIError(.gatewayTimeout, code: "request-timed-out", message: "the request took longer than \(timeout.components.seconds) s")
    }
}
