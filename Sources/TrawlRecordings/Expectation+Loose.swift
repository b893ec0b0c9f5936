import Foundation
public import TrawlCore

extension RecordingCase.Expectation {
    /// Whether the case states the loose shape of its media (``hosts`` or ``kinds``) rather
    /// than, or as well as, exact URLs.
    public var isLoose: Bool { !hosts.isEmpty || !kinds.isEmpty }

    /// Whether one of the result's files (primary or rendition) is of an expected kind on an
    /// expected host.
    public func looselyMatches(_ media: Media) -> Bool {
        let files = [(media.url, media.kind)] + media.renditions.map { ($0.url, $0.kind) }
        return files.contains { url, kind in
            let kindFits = kinds.isEmpty ? kind.isAnimated : kinds.contains(kind) || MediaKind(urlString: url).map(kinds.contains) == true
            guard kindFits else { return false }
            guard !hosts.isEmpty else { return true }
            guard let host = URL(string: url)?.host?.lowercased() else { return false }
            return hosts.contains { Self.host(host, matches: $0.lowercased()) }
        }
    }

    /// `pattern` is a host name in which `*` stands for any run of characters (none included).
    static func host(_ host: String, matches pattern: String) -> Bool {
        let pieces = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        guard pieces.count > 1 else { return host == pattern }
        guard host.hasPrefix(pieces[0]), host.hasSuffix(pieces[pieces.count - 1]),
            host.count >= pieces[0].count + pieces[pieces.count - 1].count
        else { return false }
        var rest = Substring(host.dropFirst(pieces[0].count).dropLast(pieces[pieces.count - 1].count))
        for piece in pieces.dropFirst().dropLast() where !piece.isEmpty {
            guard let found = rest.range(of: piece) else { return false }
            rest = rest[found.upperBound...]
        }
        return true
    }

    /// What the loose expectation asks for, for reasons: `gif or mp4 on media*.giphy.com, i.giphy.com`.
    var looseDescription: String {
        let what = kinds.isEmpty ? "animated media" : kinds.map(\.rawValue).joined(separator: " or ")
        return hosts.isEmpty ? what : "\(what) on \(hosts.joined(separator: ", "))"
    }
}
