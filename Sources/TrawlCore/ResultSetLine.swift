/// One result set as `trawl resolve --stream` prints it, and as `trawl serve` streams it
/// (`application/x-ndjson` lines, `text/event-stream` events).
public struct ResultSetLine: Codable, Sendable, Hashable {
    /// What the user gave, secrets redacted.
    public var input: String
    public var media: [MediaLine]
    public var total: Int?
    /// `true` when ``total`` and ``facets`` count only the newest matches and the real numbers
    /// are larger (`!local` with very common words); absent when they are exact.
    public var totalIsLowerBound: Bool?
    /// Where the next page starts (a `--page` / `cursor` token).
    public var next: String?
    public var parser: String?
    public var origin: String?
    public var degraded: Bool
    public var degradedReason: String?
    public var diagnostics: [String]
    /// Counts per site, kind and size for the whole query (`!local` only).
    public var facets: Facets?
    /// Set on the line that ends an input whose resolution failed.
    public var error: ErrorSummary?
    /// What the ranking stage judged not the page's own, each with its explanation
    /// (`--explain` only).
    public var dropped: [MediaLine]?

    /// - Parameters:
    ///   - set: the result set to print.
    ///   - input: what the user gave; the line carries it with its secrets redacted
    ///     (`Redaction.text(_:extraParameters:)`), as everything Trawl prints or answers does.
    public init(_ set: ResultSet, input: String) {
        let input = Redaction.text(input)
        self.input = input
        media = set.media.map { MediaLine($0, input: input, degraded: nil) }
        total = set.total
        totalIsLowerBound = set.totalIsLowerBound
        next = set.next?.token
        parser = set.provenance?.parser
        origin = set.provenance?.origin.description
        degraded = set.isDegraded
        degradedReason = set.degradation?.reason
        diagnostics = set.diagnostics.map(\.description)
        facets = set.facets
        dropped = set.dropped.map { $0.map { MediaLine($0, input: input, degraded: nil) } }
    }
}
