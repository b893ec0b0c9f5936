import Foundation

/// The short name of the site a page is on, as `site:` filters it: `giphy` for
/// `https://media.giphy.com/…`, `bbc` for `www.bbc.co.uk`, the address for `127.0.0.1`.
public enum SiteName {
    /// Second-level labels that sit under a two-letter country code (`co.uk`, `com.au`).
    private static let secondLevel: Set<String> = ["co", "com", "org", "net", "ac", "gov", "edu", "ne", "or"]

    /// The site of a page URL; `local` for a URL without a host (`file:`, `data:`).
    public static func of(url: String) -> String {
        if let host = plainHost(of: url) { return of(host: host) }
        guard let host = URLComponents(string: url)?.host?.lowercased(), !host.isEmpty else { return "local" }
        return of(host: host)
    }

    /// The host of a plain `http(s)://host/…` URL, read without Foundation's URL parser (which
    /// cost ~20 µs a page when indexing); `nil` for anything else (a port, user info,
    /// an IPv6 address, percent-escapes), which `URLComponents` reads.
    static func plainHost(of url: String) -> String? {
        let bytes = url.utf8
        let rest: Substring.UTF8View
        if bytes.starts(with: "https://".utf8) {
            rest = url.utf8.dropFirst(8)
        } else if bytes.starts(with: "http://".utf8) {
            rest = url.utf8.dropFirst(7)
        } else {
            return nil
        }
        let end = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? rest.endIndex
        let host = rest[rest.startIndex..<end]
        let plain =
            !host.isEmpty
            && host.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            }
        return plain ? String(Substring(host)).lowercased() : nil
    }

    /// The site of a host name, or of what a person typed after `site:` (`giphy.com`, `giphy`).
    public static func of(host: String) -> String {
        // Leading and trailing dots off (`giphy.com.`), without Foundation's CharacterSet.
        var trimmed = Substring(host.lowercased())
        while trimmed.first == "." { trimmed.removeFirst() }
        while trimmed.last == "." { trimmed.removeLast() }
        let host = String(trimmed)
        var labels = host.split(separator: ".").map(String.init)
        // An address, or a bare name: as it is.
        if labels.count < 2 || labels.allSatisfy({ Int($0) != nil }) || host.contains(":") { return host }
        let tld = labels.removeLast()
        if tld.count == 2, labels.count >= 2, let last = labels.last, secondLevel.contains(last) { labels.removeLast() }
        return labels.last ?? host
    }
}
