/// How many results of a search fall in each site, kind and size class: the counts a search
/// page shows beside its filters.
///
/// Each facet is counted with every filter of the query applied except its own, so
/// `site:giphy` still shows how many results the other sites have.
public struct Facets: Sendable, Hashable, Codable {
    /// One value of a facet and how many results have it.
    public struct Count: Sendable, Hashable, Codable {
        public var value: String
        public var count: Int

        public init(value: String, count: Int) {
            self.value = value
            self.count = count
        }
    }

    /// By site (`giphy`, `tenor`, `example`), most results first.
    public var site: [Count]
    /// By ``MediaKind`` raw value, most results first.
    public var kind: [Count]
    /// By size class (`small`, `medium`, `large`, `unknown`), most results first.
    public var size: [Count]

    public init(site: [Count] = [], kind: [Count] = [], size: [Count] = []) {
        self.site = site
        self.kind = kind
        self.size = size
    }
}
