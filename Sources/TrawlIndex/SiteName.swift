import Foundation

/// The short name of the site a page is on, as `site:` filters it: `giphy` for
/// `https://media.giphy.com/…`, `bbc` for `www.bbc.co.uk`, the address for `127.0.0.1`.
public enum SiteName {
    /// Second-level labels that sit under a two-letter country code (`co.uk`, `com.au`).
    private static let secondLevel: Set<String> = ["co", "com", "org", "net", "ac", "gov", "edu", "ne", "or"]

    /// The site of a page URL; `local` for a URL without a host (`file:`, `data:`).
    public static func of(url: String) -> String {
        guard let host = URLComponents(string: url)?.host?.lowercased(), !host.isEmpty else { return "local" }
        return of(host: host)
    }

    /// The site of a host name, or of what a person typed after `site:` (`giphy.com`, `giphy`).
    public static func of(host: String) -> String {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "."))
        var labels = host.split(separator: ".").map(String.init)
        // An address, or a bare name: as it is.
        if labels.count < 2 || labels.allSatisfy({ Int($0) != nil }) || host.contains(":") { return host }
        let tld = labels.removeLast()
        if tld.count == 2, labels.count >= 2, let last = labels.last, secondLevel.contains(last) { labels.removeLast() }
        return labels.last ?? host
    }
}
