/// A ``Query`` plus where to start and how many results the caller would like.
public struct Request: Sendable, Hashable, Codable {
    public var query: Query
    public var pagination: Pagination
    /// A hint, not a rule: engines may return more or fewer.
    public var limit: Int?
    /// Whether results carry their ``Media/evidence`` and ``Media/explanation``, and result sets
    /// the media the ranking stage dropped (``ResultSet/dropped``).
    public var explain: Bool?

    public init(query: Query, pagination: Pagination = .start, limit: Int? = nil) {
        self.query = query
        self.pagination = pagination
        self.limit = limit
    }

    /// Parses `text` as a ``Query``.
    public init(_ text: String, pagination: Pagination = .start, limit: Int? = nil) {
        self.init(query: Query(parsing: text), pagination: pagination, limit: limit)
    }
}
