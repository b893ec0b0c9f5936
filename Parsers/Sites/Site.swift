import Foundation
import TrawlCore

/// A site Trawl knows by name: which URLs are its, what to fetch for a pasted URL, and the
/// parsers for the payload shapes it serves.
///
/// Every site file in `Parsers/Sites/` declares one of these and registers it in
/// ``Sites/all``; a test proves no URL is claimed by two sites.
public protocol Site: Sendable {
    /// Lower-case, and the folder name of its cases in `Recordings/`.
    var name: String { get }
    /// Hosts this site serves pages and APIs from (a host matches itself and its subdomains).
    var hosts: [String] { get }
    /// The site's parsers, tried in order before the generic ones.
    var parsers: [any Parser] { get }
    /// What to fetch for a pasted URL when the site has a better source than the page (its
    /// JSON), tried before the page itself; empty to fetch the page.
    func rewrite(_ url: URL) -> [URL]
}

extension Site {
    public func rewrite(_ url: URL) -> [URL] { [] }

    /// Whether `url`'s host is one of ``hosts`` or below one.
    public func claims(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased() else { return false }
        return hosts.contains { host == $0 || host.hasSuffix("." + $0) }
    }
}

/// The registry of sites, sorted by name.
public enum Sites {
    public static let all: [any Site] = ([GiphySite(), ImgurSite(), RedditSite(), TenorSite(), TumblrSite(), XSite()] as [any Site])
        .sorted { $0.name < $1.name }

    /// The site a URL belongs to, if any.
    public static func site(for url: URL) -> (any Site)? {
        all.first { $0.claims(url) }
    }

    /// Every site's parsers, for the chain's site stage.
    public static var parsers: [any Parser] { all.flatMap(\.parsers) }
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
