public import Foundation
public import TrawlCore

/// The one-pass HTML scanner: meta tags, links, media elements and every JSON payload in the
/// document's scripts, read by libxml2's push parser with SAX callbacks (no tree is built).
///
/// ```swift
/// let scanned = try HTMLScanner().scan(payload)
/// scanned.summary.firstMeta("og:video")   // "https://…/giphy.mp4"
/// scanned.embedded                        // [Payload] of application/json, origin .embedded
/// ```
public struct HTMLScanner: DocumentScanner {
    /// Scripts longer than this are cut (their start still counts).
    public var maxScriptBytes: Int
    /// At most this many embedded payloads per document.
    public var maxEmbeddedPayloads: Int
    /// Feed libxml2 only what changes what it reports: script and style text read with a
    /// byte search, text it would only report and the attributes of elements the scanner does
    /// not read left out (UTF-8 documents; the result is the same, and the whole scan takes
    /// half the time libxml2 alone takes to read every byte). See ``PushParser``.
    public var thinsInput: Bool

    public init(maxScriptBytes: Int = 16 << 20, maxEmbeddedPayloads: Int = 64, thinsInput: Bool = true) {
        self.maxScriptBytes = maxScriptBytes
        self.maxEmbeddedPayloads = maxEmbeddedPayloads
        self.thinsInput = thinsInput
    }

    public func scan(_ payload: Payload) throws -> ScannedDocument {
        let stream = HTMLStreamScanner(url: payload.info.url.absoluteString, declaredCharset: payload.info.charset, configuration: self)
        var scanned = try stream.finish(last: payload.body)
        for index in scanned.embedded.indices {
            scanned.embedded[index].info.requestURL = payload.info.requestURL
            scanned.embedded[index].info.status = payload.info.status
        }
        return scanned
    }

    /// Reads an HTML document as its pieces arrive; the result equals ``scan(_:)`` of the whole.
    public func documentStream(for info: PayloadInfo) -> (any DocumentStream)? {
        HTMLDocumentStream(info: info, scanner: HTMLStreamScanner(url: info.url.absoluteString, declaredCharset: info.charset, configuration: self))
    }

    /// Scans bytes in one piece.
    public func scan(_ body: Data, url: String, declaredCharset: String? = nil) throws -> ScannedDocument {
        let stream = HTMLStreamScanner(url: url, declaredCharset: declaredCharset, configuration: self)
        return try stream.finish(last: body)
    }
}

/// An ``HTMLStreamScanner`` for one response: its embedded payloads carry the response's
/// request URL and status, as ``HTMLScanner/scan(_:)``'s do.
final class HTMLDocumentStream: DocumentStream {
    private let info: PayloadInfo
    private let scanner: HTMLStreamScanner

    init(info: PayloadInfo, scanner: HTMLStreamScanner) {
        self.info = info
        self.scanner = scanner
    }

    func feed(_ piece: Data) { scanner.feed(piece) }

    func summarySoFar() -> DocumentSummary? { scanner.summarySoFar() }

    func finish() throws -> ScannedDocument {
        var scanned = try scanner.finish()
        for index in scanned.embedded.indices {
            scanned.embedded[index].info.requestURL = info.requestURL
            scanned.embedded[index].info.status = info.status
        }
        return scanned
    }
}

@available(*, unavailable)
extension HTMLDocumentStream: Sendable {}

/// Scans a document fed in pieces as they arrive; the result equals a one-piece scan.
///
/// libxml2's push parser does not always read a document the same way when its chunk
/// boundaries move (a boundary inside a script's end tag can change what it counts), so the
/// scanner re-blocks its input: libxml2 always gets ``blockSize``-byte blocks cut at the same
/// document offsets, however the caller splits the bytes. At most one block waits in memory.
public final class HTMLStreamScanner {
    /// Bytes handed to libxml2 per call.
    public static let blockSize = 64 << 10

    private let url: String
    private let declaredCharset: String?
    private let configuration: HTMLScanner
    private var pending: [UInt8] = []
    private var parser: PushParser?
    private var charset: Charset?
    /// Pending size at the last undecided charset attempt: retries wait for 4 KiB more, so a
    /// document fed in tiny pieces is not re-examined once per piece.
    private var lastAttempt = -1
    /// How many leading bytes are known to be ASCII: past the `<meta>` window only a
    /// non-ASCII byte can decide the charset, so until one arrives there is nothing to retry.
    private var asciiPrefix = 0
    /// Bytes of the document (after a byte-order mark) handed to the parser so far.
    private var fed = 0
    /// Where the markup stopped being read, when libxml2 gave up (see ``ScanStop``); nothing
    /// more is fed from then on.
    private var stoppedAt: Int?

    public init(url: String, declaredCharset: String?, configuration: HTMLScanner = HTMLScanner()) {
        self.url = url
        self.declaredCharset = declaredCharset
        self.configuration = configuration
    }

    /// Feeds the next piece of the document.
    public func feed(_ bytes: Data) {
        if parser == nil, pending.isEmpty, bytes.count >= 2 * Charset.metaWindow {
            // Enough bytes to decide the charset from them alone: no need to copy them first.
            bytes.withUnsafeBytes { startIfDecided($0.bindMemory(to: UInt8.self), isComplete: false) }
            if let charset, parser != nil {
                feedDirect(bytes.dropFirst(charset.skip))
                return
            }
        }
        if parser != nil, pending.isEmpty {
            feedDirect(bytes)
            return
        }
        pending.append(contentsOf: bytes)
        if parser == nil {
            while asciiPrefix < pending.count, pending[asciiPrefix] < 0x80 { asciiPrefix += 1 }
            let mayDecide = pending.count <= 2 * Charset.metaWindow || asciiPrefix < pending.count || pending.count >= Charset.asciiWindow
            if mayDecide, pending.count >= lastAttempt + 4096 {
                lastAttempt = pending.count
                startPendingIfDecided(isComplete: false)
            }
        }
        if parser != nil { flush(all: false) }
    }

    /// Nothing waits: hands whole blocks straight from the caller's bytes and keeps only the
    /// tail, so a document scanned in one piece is never copied.
    private func feedDirect(_ bytes: Data) {
        guard let parser else { return }
        feedBlocks(bytes, to: parser, tail: false)
    }

    /// Feeds `bytes` in whole blocks; the remainder goes to `pending`, or, when `tail`, to libxml2.
    private func feedBlocks(_ bytes: Data, to parser: PushParser, tail: Bool) {
        let whole = tail ? bytes.count : bytes.count - bytes.count % Self.blockSize
        bytes.withUnsafeBytes { raw in
            let all = raw.bindMemory(to: UInt8.self)
            var offset = 0
            while offset < whole {
                let end = min(offset + Self.blockSize, whole)
                feedBlock(UnsafeBufferPointer(rebasing: all[offset..<end]), to: parser)
                offset = end
            }
            pending.append(contentsOf: all[whole...])
        }
    }

    /// Hands whole blocks (or, at the end, everything) to libxml2.
    private func flush(all: Bool) {
        guard let parser else { return }
        let whole = all ? pending.count : pending.count - pending.count % Self.blockSize
        guard whole > 0 else { return }
        pending.withUnsafeBufferPointer { bytes in
            var offset = 0
            while offset < whole {
                let end = min(offset + Self.blockSize, whole)
                feedBlock(UnsafeBufferPointer(rebasing: bytes[offset..<end]), to: parser)
                offset = end
            }
        }
        pending.removeFirst(whole)
    }

    /// Hands one block to libxml2 until it gives up; notes where its reading stopped counting.
    private func feedBlock(_ block: UnsafeBufferPointer<UInt8>, to parser: PushParser) {
        defer { fed += block.count }
        guard stoppedAt == nil else { return }
        let carried = parser.carriedCount
        parser.feed(block)
        if parser.failure != nil { noteStop(carried: carried) }
    }

    /// libxml2 failed while reading the bytes after `fed - carried`. What it read before stands;
    /// the rest starts one block earlier, since libxml2 may have held back an unfinished tag or
    /// script of the block before (it waits for a tag's `>`), which it never reported.
    private func noteStop(carried: Int) {
        guard stoppedAt == nil else { return }
        stoppedAt = max(0, fed - carried - Self.blockSize)
    }

    /// What libxml2 has reported so far: the summary of the markup before the last block it
    /// was given (it may hold an unfinished tag back). `nil` while the charset is undecided and
    /// nothing has been read.
    public func summarySoFar() -> DocumentSummary? {
        guard let parser, let charset else { return nil }
        var summary = parser.state.summary
        summary.charset = charset.name
        return summary
    }

    /// Feeds the last piece and ends the document: a document handed over in one piece this
    /// way goes to libxml2 straight from `bytes`, never copied.
    public func finish(last bytes: Data) throws -> ScannedDocument {
        if parser == nil, pending.isEmpty {
            bytes.withUnsafeBytes { startIfDecided($0.bindMemory(to: UInt8.self), isComplete: true) }
            if let parser, let charset {
                feedBlocks(bytes.dropFirst(charset.skip), to: parser, tail: true)
                return finish(parser, charset: charset)
            }
        }
        feed(bytes)
        return try finish()
    }

    /// Ends the document and returns what the scan found.
    ///
    /// When libxml2 gives up part way (an `htmlParseChunk` call fails: bytes its decoder
    /// cannot convert, memory), what it read up to there is kept and the summary's
    /// ``DocumentSummary/stop`` says where the unread rest starts and why: bad bytes in a page
    /// cost the media after them their structure, never the media before them.
    /// - Throws: ``HTMLError`` when libxml2 cannot start a parser (out of memory).
    public func finish() throws -> ScannedDocument {
        if parser == nil { startPendingIfDecided(isComplete: true) }
        flush(all: true)
        guard let parser, let charset else { throw HTMLError(url: url, reason: "libxml2 could not create a parser (htmlCreatePushParserCtxt)") }
        return finish(parser, charset: charset)
    }

    private func finish(_ parser: PushParser, charset: Charset) -> ScannedDocument {
        if stoppedAt == nil {
            let carried = parser.carriedCount
            parser.finish()
            if parser.failure != nil { noteStop(carried: carried) }
        }
        var scanned = Self.result(parser.state, charset: charset, configuration: configuration)
        if let stoppedAt, let failure = parser.failure {
            scanned.summary.stop = ScanStop(offset: charset.skip + stoppedAt, reason: failure)
        }
        return scanned
    }

    private func startPendingIfDecided(isComplete: Bool) {
        pending.withUnsafeBufferPointer { startIfDecided($0, isComplete: isComplete) }
        if let charset, parser != nil { pending.removeFirst(min(charset.skip, pending.count)) }
    }

    /// Decides the charset from `bytes` (the document's first bytes) and starts libxml2 once
    /// it is known; the caller drops ``Charset/skip`` bytes (a BOM) before feeding.
    private func startIfDecided(_ bytes: UnsafeBufferPointer<UInt8>, isComplete: Bool) {
        guard let decided = Charset.detect(bytes, declared: declaredCharset, isComplete: isComplete) else { return }
        charset = decided
        let state = ScanState(url: url, charset: decided.name, maxScriptBytes: configuration.maxScriptBytes)
        guard let parser = PushParser(state: state, encoding: decided.name, thins: configuration.thinsInput) else { return }
        self.parser = parser
    }

    static func result(_ state: ScanState, charset: Charset, configuration: HTMLScanner) -> ScannedDocument {
        var embedded: [Payload] = []
        let documentURL = URL(string: state.summary.url) ?? URL(string: "about:blank")!
        func add(_ json: [UInt8], _ locator: EmbeddedLocator) {
            guard embedded.count < configuration.maxEmbeddedPayloads else { return }
            let info = PayloadInfo(url: documentURL, contentType: "application/json", charset: "utf-8", origin: .embedded(locator))
            embedded.append(Payload(body: Data(json), info: info))
        }
        var linkedDataTypes: [String] = []
        for script in state.scripts where !script.body.isEmpty {
            let type = script.type.map { ($0.split(separator: ";").first ?? "").trimmedWhitespace } ?? ""
            if script.id == "__NEXT_DATA__" {
                add(trimmedJSON(script.body), EmbeddedLocator(kind: .nextData, scriptIndex: script.index, name: script.id))
            } else if type == "application/ld+json" {
                let json = trimmedJSON(script.body)
                add(json, EmbeddedLocator(kind: .linkedData, scriptIndex: script.index, name: script.id))
                linkedDataTypes += Self.types(inLinkedData: json)
            } else if type == "application/json" || type.hasSuffix("+json") {
                add(trimmedJSON(script.body), EmbeddedLocator(kind: .jsonScript, scriptIndex: script.index, name: script.id))
            } else if type.isEmpty || type.contains("javascript") || type == "module" || type.contains("ecmascript") {
                script.body.withUnsafeBufferPointer { bytes in
                    for found in ScriptJSONExtractor.extract(from: bytes) {
                        add(found.json, EmbeddedLocator(kind: found.kind, scriptIndex: script.index, name: found.name))
                    }
                }
            } else {
                // Templates and vendor types sometimes hold plain JSON.
                let body = trimmedJSON(script.body)
                if let first = body.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
                    body.withUnsafeBufferPointer(JSONSyntax.isValid)
                {
                    add(body, EmbeddedLocator(kind: .jsonScript, scriptIndex: script.index, name: script.id))
                }
            }
        }
        var summary = state.summary
        summary.charset = charset.name
        summary.linkedDataTypes = linkedDataTypes
        return ScannedDocument(summary: summary, embedded: embedded)
    }

    /// Every `@type` a JSON-LD script declares, at any depth (`@graph` included), lower-cased.
    static func types(inLinkedData json: [UInt8]) -> [String] {
        guard let value = try? JSONValue(parsing: Data(json)) else { return [] }
        var types: [String] = []
        value.walk { node in
            switch node.object?["@type"] {
            case .string(let type)?: types.append(type.lowercased())
            case .array(let list)?: types += list.compactMap { $0.string?.lowercased() }
            default: break
            }
        }
        return types
    }

    /// Strips whitespace and the `<!-- -->` / `<![CDATA[ ]]>` wrappers old pages put around JSON.
    static func trimmedJSON(_ body: [UInt8]) -> [UInt8] {
        var slice = body[...]
        func trim() {
            while let c = slice.first, c <= 0x20 { slice.removeFirst() }
            while let c = slice.last, c <= 0x20 { slice.removeLast() }
        }
        trim()
        for (open, close) in [("<!--", "-->"), ("//<![CDATA[", "//]]>"), ("<![CDATA[", "]]>")] {
            let o = Array(open.utf8), c = Array(close.utf8)
            if slice.starts(with: o) { slice.removeFirst(o.count); trim() }
            if slice.reversed().starts(with: c.reversed()) { slice.removeLast(c.count); trim() }
        }
        return Array(slice)
    }
}

@available(*, unavailable)
extension HTMLStreamScanner: Sendable {}

/// libxml2 could not read a document.
public struct HTMLError: Error, Sendable, Hashable, CustomStringConvertible {
    public var url: String
    public var reason: String
    public init(url: String, reason: String) {
        self.url = url
        self.reason = reason
    }
    public var description: String { Redaction.text("could not parse HTML of \(url): \(reason)") }
}

extension HTMLError: CodedError {
    /// `html-unreadable`: libxml2 could not read the document at all (broken markup is not this).
    public var errorCode: String { "html-unreadable" }
}
