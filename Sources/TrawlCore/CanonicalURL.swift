/// The one spelling of a media URL that two sightings of the same file share.
///
/// Pages write one URL many ways: with HTML entities (`&amp;`), JSON escapes (`\/`, `\u0026`),
/// protocol-relative (`//i.imgur.com/x.gif`), upper-case hosts. ``key(_:)`` folds them so that
/// merged results hold each file once.
public enum CanonicalURL {
    /// Decodes escapes and normalises scheme and host; keeps path and query as they are.
    public static func normalize(_ raw: String) -> String {
        var s = Unescape.jsonEscapes(Unescape.htmlEntities(raw.trimmedWhitespace))
        if s.hasPrefix("//") { s = "https:" + s }
        guard let schemeEnd = s.firstRange(ofASCII: "://") else { return s }
        let scheme = s[..<schemeEnd.lowerBound].lowercased()
        let hostEnd = s.utf8Index(from: schemeEnd.upperBound, to: URLByte.endsHost)
        var host = s[schemeEnd.upperBound..<hostEnd].lowercased()
        if scheme == "https", host.hasSuffix(":443") { host.removeLast(4) }
        if scheme == "http", host.hasSuffix(":80") { host.removeLast(3) }
        let tail = s[hostEnd..<s.utf8Index(from: hostEnd) { $0 == URLByte.hash }]
        return "\(scheme)://\(host)\(tail.isEmpty ? "/" : tail)"
    }

    /// The dedupe key: ``normalize(_:)`` with `http` and `https` folded together.
    public static func key(_ raw: String) -> String {
        keyOfNormalized(normalize(raw))
    }

    /// The dedupe key of a URL ``normalize(_:)`` returned (not decoded a second time).
    public static func keyOfNormalized(_ n: String) -> String {
        n.hasPrefix("http://") ? "https://" + n.dropFirst(7) : n
    }
}
