public import TrawlCore

/// `!local`: searches what Trawl has already found, without the network.
///
/// `!local cat typing site:giphy kind:mp4` — words ranked by BM25, `"phrases"`, `typ*` prefixes,
/// `site:`/`kind:`/`size:` filters (see ``LocalQuery``). Each result set carries ``Facets`` for
/// the whole query and each media its ``TrawlCore/Media/highlight``. Pages by offset or cursor.
/// A media found on several pages is one result, and the total and facets count it once
/// (``MediaIndex/search(_:pagination:limit:countLimit:)``).
public struct LocalEngine: Engine {
    public static let engineName = "local"
    public var name: String { Self.engineName }
    public var aliases: [String] { ["index"] }

    public let index: MediaIndex
    /// Results per page when the request gives no limit.
    public var defaultLimit: Int

    public init(index: MediaIndex, defaultLimit: Int = 25) {
        self.index = index
        self.defaultLimit = defaultLimit
    }

    /// - Throws: ``IndexError/Code/invalidQuery`` when the query cannot be read.
    public func handler(for request: Request) throws -> Handler {
        let query = try LocalQuery(parsing: request.query.raw)
        let index = self.index
        let limit = request.limit ?? defaultLimit
        return Handler { _, continuation in
            let page = try await index.search(query, pagination: request.pagination, limit: limit)
            var set = ResultSet(
                media: page.media, total: page.total, next: page.next,
                provenance: Provenance(parser: Self.engineName, origin: .document, payloadURL: nil))
            set.facets = page.facets
            if page.totalIsLowerBound { set.totalIsLowerBound = true }
            set.isDefinitive = true
            continuation.yield(set)
        }
    }
}
