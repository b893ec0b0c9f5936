public import Foundation

/// One step of a response as a transport streams it: a head, the body in pieces as they
/// arrive, an end — or a whole payload at once from a transport that holds its answers whole
/// (a replay, a cache hit, a recorder).
///
/// A reader that can use a body as it arrives (the HTML scanner) reads it here instead of
/// waiting for ``PayloadTransport/payloads(for:context:)``'s whole payloads.
public enum ResponsePart: Sendable {
    /// A response starts: everything about it but its bytes. `expectedLength` is the body's
    /// length as it will be delivered, when the response declares it. A head that comes before
    /// the last response's ``end`` starts that response over (a retry after a transfer failed
    /// part way): what was read of it is dropped.
    case head(PayloadInfo, expectedLength: Int?)
    /// The next piece of the body of the response the last head started.
    case body(Data)
    /// The response the last head started is complete.
    case end
    /// A whole response at once.
    case whole(Payload)
}

extension PayloadTransport {
    /// The responses of ``payloads(for:context:)``, each whole: what a transport that does not
    /// stream bodies serves.
    public func parts(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<ResponsePart, any Error> {
        let payloads = self.payloads(for: request, context: context)
        return AsyncThrowingStream(running: { continuation in
            for try await payload in payloads { continuation.yield(.whole(payload)) }
        })
    }
}

/// Gathers a body's pieces into one buffer, allocated once when the length is declared: a
/// body that arrives in one piece is kept as it is, never copied.
public struct BodyBuffer: Sendable {
    public private(set) var bytes = Data()
    private let expectedLength: Int?
    private var reserved = false

    /// - Parameters:
    ///   - expectedLength: the declared length.
    ///   - limit: the most the buffer reserves for a declared length.
    public init(expectedLength: Int?, limit: Int = .max) {
        self.expectedLength = expectedLength.map { min($0, limit) }
    }

    public mutating func append(_ piece: Data) {
        if bytes.isEmpty {
            bytes = piece
            return
        }
        if !reserved, let expectedLength, expectedLength > bytes.count + piece.count {
            // Grown by doubling, a body briefly needs twice its size.
            bytes.reserveCapacity(expectedLength)
        }
        reserved = true
        bytes.append(piece)
    }
}

extension AsyncThrowingStream where Element == ResponsePart, Failure == any Error {
    /// These parts, pulled as the consumer asks for them, each shown to `observe` on its way
    /// (and an error to `failed`): for wrappers that count or log responses without holding
    /// their bodies or reading ahead of the consumer.
    package func observing(
        _ observe: @escaping @Sendable (ResponsePart) -> Void, failed: @escaping @Sendable (any Error) -> Void = { _ in }
    ) -> AsyncThrowingStream<ResponsePart, any Error> {
        let reader = ObservedParts(parts: self, observe: observe, failed: failed)
        return AsyncThrowingStream(unfolding: { try await reader.next() })
    }
}

/// A part stream read on the consumer's demand, each part observed.
private actor ObservedParts {
    private var parts: AsyncThrowingStream<ResponsePart, any Error>.AsyncIterator
    private let observe: @Sendable (ResponsePart) -> Void
    private let failed: @Sendable (any Error) -> Void

    init(
        parts: AsyncThrowingStream<ResponsePart, any Error>, observe: @escaping @Sendable (ResponsePart) -> Void,
        failed: @escaping @Sendable (any Error) -> Void
    ) {
        self.parts = parts.makeAsyncIterator()
        self.observe = observe
        self.failed = failed
    }

    func next() async throws -> ResponsePart? {
        // Out of the property for the call: one `next()` runs at a time (the stream's consumer
        // waits for each part before it asks for the next).
        var iterator = parts
        defer { parts = iterator }
        do {
            guard let part = try await iterator.next(isolation: self) else { return nil }
            observe(part)
            return part
        } catch {
            failed(error)
            throw error
        }
    }
}
