/// Turns a ``Request`` into the work that answers it.
///
/// Search engines (Giphy, Tenor) call APIs and page through them; the web engine fetches a URL
/// and runs its payloads through the parser chain.
public protocol Engine: Sendable {
    /// The name `!name` picks (`giphy`), lower-case.
    var name: String { get }
    /// Other names for `!name`.
    var aliases: [String] { get }
    /// - Throws: when the request cannot be served (a missing API key, an empty term).
    func handler(for request: Request) throws -> Handler
}

extension Engine {
    public var aliases: [String] { [] }
}

/// The body of an engine's work: given the ``Environment``, it yields result sets into the
/// continuation. Throwing ends the stream with that error; returning finishes it.
public struct Handler: Sendable {
    public typealias Continuation = AsyncThrowingStream<ResultSet, any Error>.Continuation
    public typealias Body = @Sendable (Environment, Continuation) async throws -> Void

    private let body: Body

    public init(_ body: @escaping Body) { self.body = body }

    public func callAsFunction(_ environment: Environment, _ continuation: Continuation) async throws {
        try await body(environment, continuation)
    }
}
