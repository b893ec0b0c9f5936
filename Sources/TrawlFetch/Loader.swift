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
        var body = Data()
        do {
            reading: for try await event in stream(request) {
                switch event {
                case .head(let h): head = h
                case .body(let piece):
                    if let cap = request.maxBodyBytes {
                        // Enough read: leaving the loop ends the stream, which ends the transfer.
                        body.append(piece.prefix(max(0, cap - body.count)))
                        if body.count >= cap { break reading }
                        continue
                    }
                    if body.isEmpty {
                        // The first piece is kept as it is (a file arrives in one piece).
                        body = piece
                    } else {
                        if body.count == piece.count, let length = head?.bodyLength {
                            // Grown by doubling, a body briefly needs twice its size; the
                            // declared length (within the cap) lets it be allocated once.
                            body.reserveCapacity(min(length, configuration.maxBodySize))
                        }
                        body.append(piece)
                    }
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
                "bytes": "\(body.count)", "ms": "\((ContinuousClock.now - started).milliseconds)",
            ])
        return Payload(
            body: body,
            info: PayloadInfo(url: response.url, requestURL: request.url, status: response.status, headers: response.headers, origin: origin))
    }

    package func payloads(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        AsyncThrowingStream(running: { continuation in continuation.yield(try await self.fetch(request)) })
    }
}
