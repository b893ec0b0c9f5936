/// One batch of results: what one parser found in one payload, or one page of a search.
public struct ResultSet: Sendable, Hashable, Codable {
    public var media: [Media]
    /// How many results the source says there are in all, when it says.
    public var total: Int?
    /// `true` when ``total`` (and ``facets``) count only part of the matches, so the real number
    /// is at least that (the local index stops counting at ``total`` when the words match more:
    /// show "5 000+"); absent (`nil`) when the count is exact.
    public var totalIsLowerBound: Bool?
    /// Where the next page starts; `nil` on the last page.
    public var next: Pagination?
    /// Which parser produced the set, from which payload.
    public var provenance: Provenance?
    /// Set when the site parser failed and a fallback answered.
    public var degradation: Degradation?
    /// Notes worth showing a person: parsers that threw, payloads skipped.
    public var diagnostics: [Diagnostic]
    /// Set by a site parser that understood the payload: what it found (maybe nothing: a photo
    /// post, a tweet without video) is all there is, and no later parser should guess.
    public var isDefinitive: Bool = false
    /// How the whole result (not only this page) breaks down by site, kind and size, when the
    /// engine counts it (the local index does).
    public var facets: Facets?
    /// Candidates the ranking stage found on the page and judged not its own, each with its
    /// ``Media/explanation``: present only when the request asked for explanations.
    public var dropped: [Media]?

    private enum CodingKeys: String, CodingKey { case media, total, totalIsLowerBound, next, provenance, degradation, diagnostics, facets, dropped }

    public init(
        media: [Media] = [], total: Int? = nil, next: Pagination? = nil, provenance: Provenance? = nil,
        degradation: Degradation? = nil, diagnostics: [Diagnostic] = []
    ) {
        self.media = media
        self.total = total
        self.next = next
        self.provenance = provenance
        self.degradation = degradation
        self.diagnostics = diagnostics
    }

    public var isDegraded: Bool { degradation != nil }
}

/// Why a result set came from a fallback: which parsers claimed the payload and what went wrong.
public struct Degradation: Sendable, Hashable, Codable, CustomStringConvertible {
    public struct Failure: Sendable, Hashable, Codable {
        public var parser: String
        /// `found nothing`, or the error's description.
        public var reason: String
        public init(parser: String, reason: String) {
            self.parser = parser
            self.reason = reason
        }
    }

    public var failures: [Failure]
    /// The parser that answered instead.
    public var answeredBy: String

    public init(failures: [Failure], answeredBy: String) {
        self.failures = failures
        self.answeredBy = answeredBy
    }

    /// `giphy: found nothing; answered by opengraph`.
    public var reason: String {
        let failed = failures.map { "\($0.parser): \($0.reason)" }.joined(separator: "; ")
        return "\(failed); answered by \(answeredBy)"
    }

    public var description: String {
        let failed = failures.map { "\($0.parser): \($0.reason)" }.joined(separator: "; ")
        return "degraded (\(failed)); answered by \(answeredBy)"
    }
}

/// A note about the work behind a result set.
public struct Diagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Level: String, Sendable, Hashable, Codable { case info, warning, error }
    public var level: Level
    public var message: String
    /// The parser or component the note is about.
    public var source: String?

    public init(_ level: Level, _ message: String, source: String? = nil) {
        self.level = level
        self.message = message
        self.source = source
    }

    public var description: String { "\(level.rawValue): \(source.map { "\($0): " } ?? "")\(message)" }
}
