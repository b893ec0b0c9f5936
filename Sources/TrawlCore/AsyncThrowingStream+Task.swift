extension AsyncThrowingStream where Failure == any Error {
    /// A stream fed by `body`, run in a task of its own: returning finishes the stream, throwing
    /// ends it with the error, and ending the iteration (or cancelling the consumer) cancels the
    /// task — and with it whatever `body` is awaiting.
    ///
    /// ```swift
    /// AsyncThrowingStream { continuation in
    ///     for try await payload in base.payloads(for: request, context: context) { continuation.yield(payload) }
    /// }
    /// ```
    public init(running body: @escaping @Sendable (Continuation) async throws -> Void) where Element: Sendable {
        self.init { continuation in
            let task = Task {
                do {
                    try await body(continuation)
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
