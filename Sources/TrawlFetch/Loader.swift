import Foundation
package import Logging
package import TrawlCore

/// Fetches URLs through the handler registered for their scheme: `http`/`https` through
/// libcurl, `file`, `data`, and any handler you add.
///
/// ```swift
/// let loader = Loader(configuration: .init(timeout: .seconds(10)))
/// let payload = try await loader.fetch(FetchRequest(url: URL(string: "https://giphy.com/…")!))
/// ```
package final class Loader: PayloadTransport {
    package let configuration: LoaderConfiguration
    private let handlers: [String: any SchemeHandler]
    private let logger: Logger

    /// - Parameters:
    ///   - configuration: timeouts, caps, user agent.
    ///   - handlers: more scheme handlers; one for a scheme already served replaces it.
    ///   - logger: where transfers are logged (at debug level).
    package init(configuration: LoaderConfiguration = .init(), handlers: [any SchemeHandler] = [], logger: Logger = Logger(label: "trawl.fetch")) {
        self.configuration = configuration
        var table: [String: any SchemeHandler] = [:]
        for handler in [HTTPSchemeHandler(), FileSchemeHandler(), DataSchemeHandler()] as [any SchemeHandler] + handlers {
            for scheme in handler.schemes { table[scheme] = handler }
        }
        self.handlers = table
        self.logger = logger
    }

    /// The schemes this loader serves.
    package var schemes: [String] { handlers.keys.sorted() }

    /// Streams a response: the head, then body pieces as they arrive. Cancelling the consuming
    /// task stops the transfer.
    package func stream(_ request: FetchRequest) -> AsyncThrowingStream<FetchEvent, any Error> {
        guard let scheme = request.url.scheme?.lowercased(), let handler = handlers[scheme] else {
            let url = request.url.absoluteString
            let message = "'\(request.url.scheme ?? "")' is not one of \(schemes.joined(separator: ", "))"
            return AsyncThrowingStream { $0.finish(throwing: FetchError(.unsupportedScheme, url: url, message: message)) }
        }
        return handler.load(request, configuration: configuration)
    }

    /// The whole response as a payload. A 404 is a payload with status 404, not an error.
    /// - Throws: ``FetchError`` when no response could be read.
    package func fetch(_ request: FetchRequest, origin: PayloadOrigin = .document) async throws -> Payload {
        let started = ContinuousClock.now
        var head: ResponseHead?
        var body = BodyBuffer(expectedLength: nil)
        do {
            reading: for try await event in stream(request) {
                switch event {
                case .head(let h):
                    head = h
                    // The declared length (within the cap) lets the body be allocated once.
                    body = BodyBuffer(expectedLength: h.bodyLength, limit: min(configuration.maxBodySize, request.maxBodyBytes ?? .max))
                case .body(let piece):
                    if let cap = request.maxBodyBytes {
                        // Enough read: leaving the loop ends the stream, which ends the transfer.
                        // A body declared within the cap (a served range) is read to its end
                        // instead: cut at its last byte, the transfer may not have seen its end
                        // yet, and its connection would be closed rather than kept for the next.
                        body.append(piece.prefix(max(0, cap - body.bytes.count)))
                        if body.bytes.count >= cap, (head?.bodyLength).map({ $0 > cap }) ?? true { break reading }
                        continue
                    }
                    body.append(piece)
                }
            }
        } catch let error as FetchError {
            logger.debug("fetch failed", metadata: ["url": "\(Redaction.url(request.url.absoluteString))", "error": "\(error.code)"])
            throw error
        }
        if Task.isCancelled { throw FetchError(.cancelled, url: request.url.absoluteString, message: "cancelled") }
        let response = head ?? ResponseHead(url: request.url, status: 0, headers: [:])
        logger.debug(
            "fetched",
            metadata: [
                "url": "\(Redaction.url(request.url.absoluteString))", "status": "\(response.status)",
                "bytes": "\(body.bytes.count)", "ms": "\((ContinuousClock.now - started).milliseconds)",
            ])
        return Payload(
            body: body.bytes,
            info: PayloadInfo(url: response.url, requestURL: request.url, status: response.status, headers: response.headers, origin: origin))
    }

    package func payloads(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        AsyncThrowingStream(running: { continuation in continuation.yield(try await self.fetch(request)) })
    }

    /// The response as it arrives: its head, each body piece as the scheme handler hands it on,
    /// then the end. Nothing is gathered here: the consumer keeps what it needs. Cancelling the
    /// consuming task stops the transfer. A request with ``FetchRequest/maxBodyBytes`` comes
    /// whole (its prefix).
    package func parts(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<ResponsePart, any Error> {
        if request.maxBodyBytes != nil {
            return AsyncThrowingStream(running: { continuation in continuation.yield(.whole(try await self.fetch(request))) })
        }
        let reader = PartReader(request: request, events: stream(request), logger: logger)
        // Pulled: a piece is asked of the scheme handler when the consumer asks for one, so a
        // handler that can wait (a file) reads no faster than its consumer reads.
        return AsyncThrowingStream(unfolding: { try await reader.next() })
    }
}

/// Turns one request's ``FetchEvent``s into ``ResponsePart``s as the consumer asks for them.
private actor PartReader {
    let request: FetchRequest
    let logger: Logger
    private var events: AsyncThrowingStream<FetchEvent, any Error>.AsyncIterator
    private var head: ResponseHead?
    private var queued: [ResponsePart] = []
    private var bytes = 0
    private var done = false
    private let started = ContinuousClock.now

    init(request: FetchRequest, events: AsyncThrowingStream<FetchEvent, any Error>, logger: Logger) {
        self.request = request
        self.events = events.makeAsyncIterator()
        self.logger = logger
    }

    func next() async throws -> ResponsePart? {
        if !queued.isEmpty { return queued.removeFirst() }
        guard !done else { return nil }
        let event: FetchEvent?
        do {
            // Out of the property for the call (one `next()` runs at a time: the stream's
            // consumer waits for each part before it asks for the next).
            var iterator = events
            defer { events = iterator }
            event = try await iterator.next(isolation: self)
        } catch let error as FetchError {
            done = true
            logger.debug("fetch failed", metadata: ["url": "\(Redaction.url(request.url.absoluteString))", "error": "\(error.code)"])
            throw error
        }
        switch event {
        case .head(let response)?:
            return start(response)
        case .body(let piece)?:
            bytes += piece.count
            guard head == nil else { return .body(piece) }
            queued.append(.body(piece))
            return start(ResponseHead(url: request.url, status: 0, headers: [:]))
        case nil:
            done = true
            if Task.isCancelled { throw FetchError(.cancelled, url: request.url.absoluteString, message: "cancelled") }
            logger.debug(
                "fetched",
                metadata: [
                    "url": "\(Redaction.url(request.url.absoluteString))", "status": "\(head?.status ?? 0)",
                    "bytes": "\(bytes)", "ms": "\((ContinuousClock.now - started).milliseconds)",
                ])
            guard head == nil else { return .end }
            queued.append(.end)
            return start(ResponseHead(url: request.url, status: 0, headers: [:]))
        }
    }

    private func start(_ response: ResponseHead) -> ResponsePart {
        head = response
        let info = PayloadInfo(url: response.url, requestURL: request.url, status: response.status, headers: response.headers, origin: .document)
        return .head(info, expectedLength: response.bodyLength)
    }
}
