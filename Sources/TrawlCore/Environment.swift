public import Foundation

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
    /// The same responses as parts: bodies in pieces as they arrive, where the transport can
    /// stream them (see ``ResponsePart``); the default serves each payload whole.
    func parts(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<ResponsePart, any Error>
}

/// Reads an HTML payload once: its summary, and every JSON payload embedded in it.
public protocol DocumentScanner: Sendable {
    func scan(_ payload: Payload) throws -> ScannedDocument
    /// Starts reading a document that arrives in pieces, described by `info`; `nil` when this
    /// scanner reads whole documents only. The stream's result equals ``scan(_:)`` of the
    /// whole payload.
    func documentStream(for info: PayloadInfo) -> (any DocumentStream)?
}

extension DocumentScanner {
    public func documentStream(for info: PayloadInfo) -> (any DocumentStream)? { nil }
}

/// A document read as its pieces arrive (see ``DocumentScanner/documentStream(for:)``). Used by
/// one task at a time.
public protocol DocumentStream: AnyObject {
    /// Reads the next piece of the document.
    func feed(_ piece: Data)
    /// Ends the document and returns what was found.
    /// - Throws: when the document could not be read at all.
    func finish() throws -> ScannedDocument
    /// What the scan has read so far (its meta tags, links, title), without ending the
    /// document; `nil` when nothing is known yet. Embedded JSON waits for ``finish()``.
    func summarySoFar() -> DocumentSummary?
}

extension DocumentStream {
    /// A stream that cannot say what it read before its end: no document start is handed on.
    public func summarySoFar() -> DocumentSummary? { nil }
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
    /// Reads the first bytes of images a page shows without saying what they are, so their own
    /// bytes decide (``BytesEvidence``); `nil`: such images are dropped for want of evidence.
    public var bytesEvidence: BytesEvidence?
    /// A streamed HTML document no site parser claims keeps at most this many bytes of its
    /// body; the scanner still reads all of it, and the media-looking URLs of the rest are kept
    /// for the text fallback (``Payload/overflow``). A page a site parser claims is kept whole
    /// (site parsers read its text).
    public var documentBodyLimit = 1 << 20

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
    /// its ``Payload/document`` summary) followed by each JSON payload embedded in it. A body the
    /// transport streams is scanned as its pieces arrive.
    /// - Parameters:
    ///   - request: what to fetch.
    ///   - context: the user's request this fetch serves (for recording and logs).
    ///   - documentStarts: whether a streamed document that outgrows ``documentBodyLimit`` is
    ///     also handed on at that point, as its kept bytes and what the scan has read of them
    ///     (``Payload/isDocumentStart``), so a reader can act on its head before the rest
    ///     arrives. The whole document follows either way.
    public func payloads(for request: FetchRequest, from context: Request?, documentStarts: Bool = false) -> AsyncThrowingStream<Payload, any Error> {
        scanned(transport.parts(for: request, context: context), documentStarts: documentStarts)
    }

    /// The payloads of `request` rendered by ``renderer``: each XHR response it caught, then
    /// the settled DOM (scanned like a document: its summary, then its embedded JSON).
    /// - Returns: an empty stream when there is no renderer.
    public func renderedPayloads(for request: FetchRequest, from context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        guard let renderer else { return AsyncThrowingStream { $0.finish() } }
        let payloads = renderer.render(request, context: context)
        return scanned(
            AsyncThrowingStream(running: { continuation in
                for try await payload in payloads { continuation.yield(.whole(payload)) }
            }))
    }

    /// `responses`, with each HTML one followed by the JSON embedded in it.
    private func scanned(_ responses: AsyncThrowingStream<ResponsePart, any Error>, documentStarts: Bool = false) -> AsyncThrowingStream<Payload, any Error> {
        let scanner = self.scanner
        let parsers = self.parsers
        let limit = documentBodyLimit
        return AsyncThrowingStream(running: { continuation in
            // The response whose body is arriving: its bytes, gathered once for the parsers,
            // and, for HTML, the scanner reading each piece as it comes.
            var info: PayloadInfo?
            var body = BodyBuffer(expectedLength: nil)
            var stream: (any DocumentStream)?
            var bounded = false
            var length = 0
            var overflow: MediaURLScan?
            var startSent = false
            for try await part in responses {
                switch part {
                case .whole(let payload):
                    try Self.yieldScanned(payload, scanner: scanner, into: continuation)
                case .head(let head, let expectedLength):
                    info = head
                    stream = head.isHTML ? scanner?.documentStream(for: head) : nil
                    bounded = stream != nil && parsers.claimants(of: head, stage: .site).isEmpty
                    body = BodyBuffer(expectedLength: expectedLength, limit: bounded ? limit : .max)
                    length = 0
                    overflow = nil
                    startSent = false
                case .body(let piece):
                    stream?.feed(piece)
                    length += piece.count
                    guard bounded, length > limit else {
                        body.append(piece)
                        continue
                    }
                    if overflow == nil {
                        // The first byte past the limit: from here on the text is kept only
                        // as its media-looking URLs, read from the start.
                        var scan = MediaURLScan()
                        body.bytes.withUnsafeBytes { scan.feed($0) }
                        overflow = scan
                        let room = limit - body.bytes.count
                        if room > 0 { body.append(piece.prefix(room).withUnsafeBytes { Data($0) }) }
                    }
                    piece.withUnsafeBytes { overflow?.feed($0) }
                    if documentStarts, !startSent, let head = info, let summary = stream?.summarySoFar() {
                        // Past the limit, once the scan can say what it read (its charset may
                        // still be undecided at the first byte past the limit).
                        var start = Payload(body: body.bytes, info: head, document: summary)
                        start.isDocumentStart = true
                        startSent = true
                        continuation.yield(start)
                    }
                case .end:
                    guard let head = info else { continue }
                    var payload = Payload(body: body.bytes, info: head)
                    if var scan = overflow {
                        scan.finish()
                        payload.overflow = BodyOverflow(length: length, candidates: scan.candidates)
                    }
                    info = nil
                    body = BodyBuffer(expectedLength: nil)
                    overflow = nil
                    if let reading = stream {
                        stream = nil
                        try Self.yield(payload, reading.finish(), into: continuation)
                    } else {
                        try Self.yieldScanned(payload, scanner: scanner, into: continuation)
                    }
                }
            }
        })
    }

    /// `payload`, scanned first when it is HTML.
    private static func yieldScanned(
        _ payload: Payload, scanner: (any DocumentScanner)?, into continuation: AsyncThrowingStream<Payload, any Error>.Continuation
    ) throws {
        guard let scanner, payload.info.isHTML || looksLikeHTML(payload) else {
            continuation.yield(payload)
            return
        }
        try yield(payload, scanner.scan(payload), into: continuation)
    }

    /// The document with its summary, then the JSON embedded in it.
    private static func yield(_ payload: Payload, _ scanned: ScannedDocument, into continuation: AsyncThrowingStream<Payload, any Error>.Continuation) throws {
        var document = payload
        document.document = scanned.summary
        continuation.yield(document)
        for embedded in scanned.embedded {
            try Task.checkCancellation()
            continuation.yield(embedded)
        }
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
