package import TrawlCore

/// Decides what a page is (``PageKind``) from what it declares of itself, payload by payload,
/// before its media are ranked: its HTTP status, its OpenGraph type and Twitter card, the types
/// of its JSON-LD, and — for a JSON answer — whether it holds one item or a list of them.
/// Nothing here reads a host or a class name: the evidence is what any page says of itself.
///
/// A declaration wins over a guess, and the page's own metadata over its JSON-LD (an article
/// that embeds a video declares `og:type article` and a `VideoObject`: it is an article); the
/// JSON-LD's types come with the document (``DocumentSummary/linkedDataTypes``). A page
/// that declares nothing is judged at the end by what was found on it (``undeclared(named:shown:)``).
package struct PageKindEvidence: Sendable {
    /// The kind a declaration decided, if one did.
    package private(set) var declared: PageKind?
    /// How strong the declaration is: a status outranks what a page says of itself.
    private var strength = 0

    package init() {}

    /// Reads one payload of the page.
    package mutating func read(_ payload: Payload) {
        let info = payload.info
        let isPage = info.origin == .document || info.origin == .domSnapshot
        if isPage, !info.isSuccess {
            decide(PageKind(.none, reason: "HTTP \(info.status)"), strength: 3)
            return
        }
        if isPage, let summary = payload.document {
            if let kind = Self.kind(of: summary) { decide(kind, strength: 2) }
            return
        }
        if info.origin == .document, info.isJSON, let value = try? JSONValue(parsing: payload.body) {
            decide(Self.kind(ofJSONAnswer: value), strength: 2)
        }
    }

    /// Reads a site's better source for the page (its post's JSON): one item or a list.
    package mutating func readSource(_ payload: Payload) {
        guard payload.info.isSuccess, payload.info.isJSON, let value = try? JSONValue(parsing: payload.body) else { return }
        decide(Self.kind(ofJSONAnswer: value), strength: 2)
    }

    private mutating func decide(_ kind: PageKind, strength: Int) {
        guard strength > self.strength else { return }
        declared = kind
        self.strength = strength
    }

    /// The kind of a page that declared none, from what was found on it: nothing at all is no
    /// item; media the page names make it an item's page; media it only shows in its body, an
    /// article's.
    package static func undeclared(named: Int, shown: Int) -> PageKind {
        if named == 0, shown == 0 { return PageKind(.none, reason: "declares no kind and has no media") }
        if named > 0 { return PageKind(.item, reason: "declares no kind and names its media") }
        return PageKind(.article, reason: "declares no kind and shows media in its body")
    }

    // MARK: the page's metadata

    static func kind(of summary: DocumentSummary) -> PageKind? {
        if let type = summary.firstMeta("og:type")?.lowercased().trimmingCharacters(in: .whitespaces), !type.isEmpty {
            if type.hasPrefix("video") || type == "image" || type.hasPrefix("music.song") { return PageKind(.item, reason: "og:type \(type)") }
            if articleTypes.contains(type) || type.hasSuffix(":article") || type.hasSuffix(".article") {
                return PageKind(.article, reason: "og:type \(type)")
            }
            if type == "profile" || type.hasSuffix("playlist") || type.hasSuffix("album") { return PageKind(.listing, reason: "og:type \(type)") }
        }
        if summary.firstMeta("twitter:card")?.lowercased() == "player" { return PageKind(.item, reason: "twitter:card player") }
        for key in ["og:video", "og:video:url", "og:video:secure_url"] where summary.firstMeta(key) != nil {
            return PageKind(.item, reason: key)
        }
        return kind(ofLinkedDataTypes: summary.linkedDataTypes)
    }

    static let articleTypes: Set<String> = ["article", "blog", "news", "newsarticle", "blogposting"]

    // MARK: JSON-LD

    /// The first JSON-LD type that says what a page is (a `WebPage` or an `Organization` does not).
    static func kind(ofLinkedDataTypes types: [String]) -> PageKind? {
        for type in types {
            if linkedDataArticles.contains(type) { return PageKind(.article, reason: "JSON-LD \(type)") }
            if linkedDataItems.contains(type) { return PageKind(.item, reason: "JSON-LD \(type)") }
            if linkedDataListings.contains(type) { return PageKind(.listing, reason: "JSON-LD \(type)") }
        }
        return nil
    }

    static let linkedDataArticles: Set<String> = [
        "article", "newsarticle", "blogposting", "reportagenewsarticle", "analysisnewsarticle", "opinionnewsarticle", "reviewnewsarticle",
        "techarticle", "scholarlyarticle", "liveblogposting", "report", "review",
    ]
    static let linkedDataItems: Set<String> = ["videoobject", "imageobject", "socialmediaposting", "discussionforumposting", "clip", "movie"]
    static let linkedDataListings: Set<String> = ["itemlist", "collectionpage", "searchresultspage", "profilepage", "imagegallery", "mediagallery"]

    // MARK: a JSON answer

    /// A JSON answer is a listing when it is, or holds under a list key, two or more objects;
    /// otherwise it is one item.
    static func kind(ofJSONAnswer value: JSONValue) -> PageKind {
        if let array = value.array {
            // A list of lists (a post's listing, then its comments' listing): the first is what
            // the answer is about.
            if let first = array.first?.object, listInside(first, atLeast: 1) != nil { return kind(ofJSONAnswer: .object(first)) }
            let objects = array.filter { $0.object != nil }.count
            return objects >= 2 ? PageKind(.listing, reason: "a JSON list of \(objects) objects") : PageKind(.item, reason: "a JSON answer of one object")
        }
        if let object = value.object, let best = listInside(object) {
            return PageKind(.listing, reason: "a JSON answer with \(best.count) \(best.key)")
        }
        return PageKind(.item, reason: "a JSON answer of one object")
    }

    /// The longest list of at least `minimum` objects under a list key, two levels down at most.
    static func listInside(_ object: [String: JSONValue], atLeast minimum: Int = 2) -> (key: String, count: Int)? {
        var best: (key: String, count: Int)?
        func look(_ object: [String: JSONValue], depth: Int) {
            for (key, child) in object {
                if let array = child.array, listKeys.contains(key.lowercased()) {
                    let objects = array.filter { $0.object != nil }.count
                    if objects >= minimum, objects > (best?.count ?? 0) { best = (key, objects) }
                } else if depth < 2, let inner = child.object {
                    look(inner, depth: depth + 1)
                }
            }
        }
        look(object, depth: 0)
        return best
    }

    /// Keys under which APIs return their lists of items.
    static let listKeys: Set<String> = [
        "children", "data", "items", "results", "statuses", "posts", "feed", "entries", "gifs", "hits", "timeline", "tweets", "records",
        "list",
    ]
}
