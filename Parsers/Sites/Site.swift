package import Foundation
package import TrawlCore

/// A site Trawl knows by name: which URLs are its, what to fetch for a pasted URL, and the
/// parsers for the payload shapes it serves.
///
/// Every site file in `Parsers/Sites/` declares one of these and registers it in
/// ``Sites/all``; a test proves no URL is claimed by two sites.
///
/// A site claims a URL by its host (``hosts``) or, for software that runs on any host (the
/// fediverse's instances), by the URL's shape (``claimsByShape(_:)``). A shape never wins over a
/// host: a URL on a host some site lists is that site's, whatever its path looks like.
package protocol Site: Sendable {
    /// Lower-case, and the folder name of its cases in `Recordings/`.
    var name: String { get }
    /// Hosts this site serves pages and APIs from (a host matches itself and its subdomains).
    var hosts: [String] { get }
    /// The site's parsers, tried in order before the generic ones.
    var parsers: [any Parser] { get }
    /// What to fetch for a pasted URL when the site has a better source than the page (its
    /// JSON), tried before the page itself; empty to fetch the page.
    func rewrite(_ url: URL) -> [URL]
    /// The requests for the site's better source, for a source that is not a plain GET (an API
    /// that takes a POST body); by default a GET of each ``rewrite(_:)`` URL.
    func sources(for url: URL) -> [FetchRequest]
    /// Whether `url` has the shape of this site's pages on a host the site cannot list (any
    /// instance of the software); `false` by default. Consulted only for hosts no site lists.
    func claimsByShape(_ url: URL) -> Bool
    /// A token the site's API wants with every source request (``rewrite(_:)``'s URLs); `nil`
    /// for a site whose sources are public.
    var token: SiteToken? { get }
    /// The requests for the site's better source given the API keys the user configured
    /// (Tenor's post lookup takes one); by default ``sources(for:)``, which needs none.
    func sources(for url: URL, keys: SiteKeys) -> [FetchRequest]
    /// Why the site's better source for `url` is not asked with these keys (a key it needs is
    /// not configured), for `--explain`; `nil` when it is asked or there is none.
    func unaskedSource(for url: URL, keys: SiteKeys) -> String?
}

extension Site {
    package func rewrite(_ url: URL) -> [URL] { [] }
    package var token: SiteToken? { nil }

    package func sources(for url: URL) -> [FetchRequest] { rewrite(url).map { FetchRequest(url: $0) } }

    package func sources(for url: URL, keys: SiteKeys) -> [FetchRequest] { sources(for: url) }

    package func unaskedSource(for url: URL, keys: SiteKeys) -> String? { nil }

    package func claimsByShape(_ url: URL) -> Bool { false }

    /// Whether `url`'s host is one of ``hosts`` or below one.
    package func claimsHost(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased() else { return false }
        return hosts.contains { host.isHost(orBelow: $0) }
    }

    /// Whether `url` is this site's: its host is one of ``hosts`` (or below one), or it has the
    /// site's shape (``claimsByShape(_:)``) on a host no site lists.
    package func claims(_ url: URL) -> Bool {
        if claimsHost(url) { return true }
        guard claimsByShape(url) else { return false }
        return !Sites.all.contains { $0.claimsHost(url) }
    }
}

/// A token a site's API hands to anyone who asks (Redgifs' temporary token) and wants back on
/// every request: fetched once per run, sent as a header with each source request, and fetched
/// anew when a source answers 401 (it expired).
package struct SiteToken: Sendable, Hashable {
    /// Where the token comes from (a GET answering JSON).
    package var url: URL
    /// The key of the token in that JSON object.
    package var field: String
    /// The header that carries it, and what comes before the token in its value.
    package var header: String
    package var prefix: String

    package init(url: URL, field: String = "token", header: String = "Authorization", prefix: String = "Bearer ") {
        self.url = url
        self.field = field
        self.header = header
        self.prefix = prefix
    }

    /// The token in the token endpoint's answer, or `nil` when the answer is not a success or
    /// has no such string.
    package func read(_ payload: Payload) -> String? {
        guard payload.info.isSuccess, let json = try? JSONValue(parsing: payload.body),
            let token = json[field]?.string, !token.isEmpty
        else { return nil }
        return token
    }

    /// `request` with the header that sends `token` added to its own.
    package func authorizing(_ request: FetchRequest, with token: String) -> FetchRequest {
        var authorized = request
        authorized.headers.add(name: header, value: prefix + token)
        return authorized
    }
}

/// API keys the user configured, by the name of the site whose source takes one (`tenor`):
/// given to the web engine, which hands each site its own. Only the `trawl` command reads them
/// from the environment (`TRAWL_TENOR_KEY`).
package struct SiteKeys: Sendable, Hashable {
    package var keys: [String: String]

    package init(_ keys: [String: String] = [:]) {
        self.keys = keys.filter { !$0.value.isEmpty }
    }

    /// The key configured for `site`, if any.
    package subscript(site: String) -> String? { keys[site] }
}

/// The registry of sites, sorted by name.
package enum Sites {
    package static let all: [any Site] =
        ([
            BlueskySite(), CoubSite(), FacebookSite(), FediverseSite(), GiphySite(), ImgflipSite(), ImgurSite(), InstagramSite(),
            KnowYourMemeSite(), PinterestSite(), RedditSite(), RedgifsSite(), StreamableSite(), TenorSite(), ThreadsSite(), TikTokSite(),
            TumblrSite(), XSite(),
        ] as [any Site])
        .sorted { $0.name < $1.name }

    /// The site a URL belongs to, if any.
    package static func site(for url: URL) -> (any Site)? {
        all.first { $0.claims(url) }
    }

    /// Every site's parsers, for the chain's site stage.
    package static var parsers: [any Parser] { all.flatMap(\.parsers) }
}

extension PayloadInfo {
    /// Fetched (the document or a follow-up), not cut out of another payload.
    var isFetched: Bool {
        switch origin {
        case .document, .followUp: true
        case .embedded, .browserXHR, .domSnapshot: false
        }
    }

    /// Whether this payload came from (or was cut out of a page of) `site`.
    func belongs(to site: some Site) -> Bool {
        site.claims(url) || site.claims(requestURL)
    }
}
