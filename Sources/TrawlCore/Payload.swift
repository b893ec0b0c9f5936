public import Foundation

/// One response handed to parsers: bytes plus what is known about them.
public struct Payload: Sendable {
    public var body: Data
    public var info: PayloadInfo
    /// What the HTML scanner found, for HTML documents; `nil` for everything else.
    public var document: DocumentSummary?
    /// For a streamed document too large to keep whole (see
    /// ``Environment/documentBodyLimit``): ``body`` is its first bytes only, and this says what
    /// the rest held for the readers of its text. `nil`: ``body`` is the whole response.
    public var overflow: BodyOverflow?
    /// Whether this is only the start of a large document whose body is still arriving (see
    /// ``Environment/payloads(for:from:documentStarts:)``): ``body`` is its first bytes and
    /// ``document`` what the scan read of them. The whole document follows in the same stream.
    public var isDocumentStart = false

    public init(body: Data, info: PayloadInfo, document: DocumentSummary? = nil) {
        self.body = body
        self.info = info
        self.document = document
    }

    /// The length of the whole body, kept or not.
    public var bodyLength: Int { overflow?.length ?? body.count }

    /// The body as UTF-8 text (invalid sequences repaired).
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// What a document's text held beyond the bytes a ``Payload`` keeps of it.
public struct BodyOverflow: Sendable, Hashable {
    /// The whole body's length.
    public var length: Int
    /// Every media-looking URL of the whole text, in order (see ``MediaURLCandidate``): what the
    /// text fallback reads instead of the text.
    public var candidates: [MediaURLCandidate]

    public init(length: Int, candidates: [MediaURLCandidate]) {
        self.length = length
        self.candidates = candidates
    }
}

/// Everything about a payload except its bytes.
public struct PayloadInfo: Sendable, Hashable {
    /// The URL the bytes came from, after redirects.
    public var url: URL
    /// The URL first asked for.
    public var requestURL: URL
    /// HTTP status; 200 for schemes without one.
    public var status: Int
    public var headers: HTTPHeaders
    /// Media type without parameters, lower-cased (`text/html`).
    public var contentType: String?
    /// The declared charset, lower-cased, if any.
    public var charset: String?
    public var origin: PayloadOrigin

    public init(
        url: URL, requestURL: URL? = nil, status: Int = 200, headers: HTTPHeaders = [:],
        contentType: String? = nil, charset: String? = nil, origin: PayloadOrigin = .document
    ) {
        self.url = url
        self.requestURL = requestURL ?? url
        self.status = status
        self.headers = headers
        let parsed = contentType.map(ContentType.init(parsing:)) ?? headers["Content-Type"].map(ContentType.init(parsing:))
        self.contentType = parsed?.mediaType
        self.charset = charset ?? parsed?.charset
        self.origin = origin
    }

    public var isHTML: Bool {
        guard let type = contentType else { return false }
        return type == "text/html" || type == "application/xhtml+xml"
    }

    public var isJSON: Bool {
        guard let type = contentType else { return false }
        return type == "application/json" || type.hasSuffix("+json") || type == "text/json"
    }

    public var isSuccess: Bool { (200..<300).contains(status) }

    /// A whole HTML page (fetched, or serialized by a browser): what metadata parsers read.
    public var isHTMLDocument: Bool { isHTML && origin == .document || origin == .domSnapshot }
}

/// A `Content-Type` value split into its media type and charset.
public struct ContentType: Sendable, Hashable {
    public var mediaType: String
    public var charset: String?

    public init(parsing value: String) {
        let parts = value.split(separator: ";")
        mediaType = parts.first.map { $0.trimmedWhitespace.lowercased() } ?? ""
        charset = nil
        for part in parts.dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmedWhitespace.lowercased() == "charset" else { continue }
            charset = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: " \t\"'")).lowercased()
        }
    }
}
