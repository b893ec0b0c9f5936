import Foundation

/// Carries requests to the outside world (or to a recording of it) and hands back payloads.
///
/// Production (libcurl), recording and replay transports are interchangeable: that is how
/// every parser gets regression tests from recorded data.
public protocol PayloadTransport: Sendable {
    /// The responses for one request: usually one payload, the document.
    /// - Parameters:
    ///   - request: what to fetch.
    ///   - context: the user's request this fetch serves (for recording and logs).
    func payloads(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error>
}

/// Reads an HTML payload once: its summary, and every JSON payload embedded in it.
public protocol DocumentScanner: Sendable {
    func scan(_ payload: Payload) throws -> ScannedDocument
}

/// What a ``DocumentScanner`` found.
public struct ScannedDocument: Sendable {
    public var summary: DocumentSummary
    /// JSON cut out of the document, each with its ``PayloadOrigin/embedded(_:)`` origin.
    public var embedded: [Payload]

    public init(summary: DocumentSummary, embedded: [Payload]) {
        self.summary = summary
        self.embedded = embedded
    }
}

/// Everything an engine's work touches outside itself.
public struct Environment: Sendable {
    public var transport: any PayloadTransport
    /// Reads HTML documents; without one, HTML goes to parsers as bare bytes.
    public var scanner: (any DocumentScanner)?
    public var parsers: ParserChain
    public var clock: any Clock<Duration>
    /// How many follow-up fetches (oEmbed, site APIs) one page may cause.
    public var maxFollowUps: Int
    /// Renders script-driven pages in a browser; `nil`: static fetches only.
    public var renderer: (any PageRenderer)?
    /// Told what each request found when its stream ends (the local index); `nil`: nobody.
    public var sink: (any ExtractionSink)?
    /// Checks what each result set's media URLs really are before the set is handed on
    /// (`--probe`); `nil`: the media are handed on as the pages claim them.
    public var checker: (any MediaChecker)?

    public init(
        transport: any PayloadTransport, scanner: (any DocumentScanner)?, parsers: ParserChain,
        clock: any Clock<Duration> = ContinuousClock(), maxFollowUps: Int = 2
    ) {
        self.transport = transport
        self.scanner = scanner
        self.parsers = parsers
        self.clock = clock
        self.maxFollowUps = maxFollowUps
    }

    /// The payloads for one request: each response, and for an HTML response the document (with
    /// its ``Payload/document`` summary) followed by each JSON payload embedded in it.
    public func payloads(for request: FetchRequest, from context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        scanned(transport.payloads(for: request, context: context))
    }

    /// The payloads of `request` rendered by ``renderer``: each XHR response it caught, then
    /// the settled DOM (scanned like a document: its summary, then its embedded JSON).
    /// - Returns: an empty stream when there is no renderer.
    public func renderedPayloads(for request: FetchRequest, from context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        guard let renderer else { return AsyncThrowingStream { $0.finish() } }
        return scanned(renderer.render(request, context: context))
    }

    /// `responses`, with each HTML one followed by the JSON embedded in it.
    private func scanned(_ responses: AsyncThrowingStream<Payload, any Error>) -> AsyncThrowingStream<Payload, any Error> {
        let scanner = self.scanner
        return AsyncThrowingStream(running: { continuation in
            for try await payload in responses {
                guard let scanner, payload.info.isHTML || Self.looksLikeHTML(payload) else {
                    continuation.yield(payload)
                    continue
                }
                let scanned = try scanner.scan(payload)
                var document = payload
                document.document = scanned.summary
                continuation.yield(document)
                for embedded in scanned.embedded {
                    try Task.checkCancellation()
                    continuation.yield(embedded)
                }
            }
        })
    }

    /// A document served without a content type (`file:`, bad servers) that starts like HTML.
    static func looksLikeHTML(_ payload: Payload) -> Bool {
        guard
            payload.info.contentType == nil || payload.info.contentType == "text/plain"
                || payload.info.contentType == "application/octet-stream"
        else { return false }
        let head = payload.body.prefix(512).drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
        guard head.first == UInt8(ascii: "<") else { return false }
        let lowered = String(decoding: head.prefix(64), as: UTF8.self).lowercased()
        return lowered.hasPrefix("<!doctype html") || lowered.hasPrefix("<html") || lowered.hasPrefix("<head")
            || lowered.hasPrefix("<meta") || lowered.hasPrefix("<!--")
    }
}
