/// Where a parser stands in a ``ParserChain``.
public enum ParserStage: Int, Sendable, Hashable, Codable, Comparable, CaseIterable {
    /// Knows one site's payloads.
    case site
    /// Reads metadata any page may carry (OpenGraph, JSON-LD, …).
    case generic
    /// Finds media-looking URLs in any text: the last resort.
    case fallback

    public static func < (a: ParserStage, b: ParserStage) -> Bool { a.rawValue < b.rawValue }
}

/// Turns one payload into results.
///
/// Parsers are fault-tolerant: only a missing identity field may fail a parse; anything else
/// missing costs that field. Throwing, or returning no media, lets the chain fall through.
public protocol Parser: Sendable {
    /// A short stable name (`opengraph`, `giphy`), shown in provenance.
    var name: String { get }
    var stage: ParserStage { get }
    /// Whether this parser reads payloads like this one (by URL, content type, origin).
    func canParse(_ info: PayloadInfo) -> Bool
    /// Reads the payload.
    /// - Throws: ``ParseError`` when the payload is not what the parser expects.
    func parse(_ payload: Payload) throws -> ResultSet
}

/// A parser could not read a payload. ``description`` names the URL with its secrets
/// (API keys in the query) redacted.
public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public var parser: String
    public var url: String
    public var reason: String

    public init(parser: String, url: String, reason: String) {
        self.parser = parser
        self.url = url
        self.reason = reason
    }

    public var description: String { Redaction.text("\(parser) could not parse \(url): \(reason)") }
}
