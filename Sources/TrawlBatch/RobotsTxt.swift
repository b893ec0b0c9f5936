import Foundation
import TrawlCore

/// The rules of one `robots.txt` (RFC 9309) for one user agent: the most specific matching rule
/// wins, `Allow` on a tie; `*` matches any run of characters and a final `$` the path's end.
struct RobotsTxt: Sendable, Hashable {
    struct Rule: Sendable, Hashable {
        var allow: Bool
        var pattern: String
    }

    var rules: [Rule]
    /// `Crawl-delay`, seconds, when the group gives one.
    var crawlDelay: Double?

    /// Everything allowed (no file, or a 4xx for it).
    static let allowAll = RobotsTxt(rules: [], crawlDelay: nil)

    /// Parses `text` and keeps the group for `agent` (its product token, as `trawl`), else `*`.
    init(_ text: String, agent: String) {
        var groups: [(agents: [String], rules: [Rule], delay: Double?)] = []
        var collectingAgents = false
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            guard let colon = line.firstIndex(of: ":") else { continue }
            let field = line[..<colon].trimmedWhitespace.lowercased()
            let value = line[line.index(after: colon)...].trimmedWhitespace
            switch field {
            case "user-agent":
                if !collectingAgents || groups.isEmpty { groups.append(([], [], nil)) }
                groups[groups.count - 1].agents.append(value.lowercased())
                collectingAgents = true
            case "allow", "disallow":
                collectingAgents = false
                guard !groups.isEmpty, !(field == "disallow" && value.isEmpty) else { continue }
                groups[groups.count - 1].rules.append(Rule(allow: field == "allow", pattern: value))
            case "crawl-delay":
                collectingAgents = false
                if !groups.isEmpty, let seconds = Double(value) { groups[groups.count - 1].delay = seconds }
            default:
                continue
            }
        }
        let token = agent.lowercased()
        let mine = groups.filter { $0.agents.contains { $0 != "*" && token.hasPrefix($0) } }
        let chosen = mine.isEmpty ? groups.filter { $0.agents.contains("*") } : mine
        rules = chosen.flatMap(\.rules)
        crawlDelay = chosen.compactMap(\.delay).first
    }

    init(rules: [Rule], crawlDelay: Double?) {
        self.rules = rules
        self.crawlDelay = crawlDelay
    }

    /// Whether `path` (path and query) may be fetched.
    func allows(_ path: String) -> Bool {
        if path == "/robots.txt" { return true }
        var best: Rule?
        for rule in rules where Self.matches(rule.pattern, path) {
            if let current = best {
                if rule.pattern.count > current.pattern.count || (rule.pattern.count == current.pattern.count && rule.allow) { best = rule }
            } else {
                best = rule
            }
        }
        return best?.allow ?? true
    }

    static func matches(_ pattern: String, _ path: String) -> Bool {
        let anchored = pattern.hasSuffix("$")
        let pieces = (anchored ? String(pattern.dropLast()) : pattern).split(separator: "*", omittingEmptySubsequences: false)
        var rest = Substring(path)
        for (index, piece) in pieces.enumerated() {
            if index == 0 {
                guard rest.hasPrefix(piece) else { return false }
                rest = rest.dropFirst(piece.count)
            } else if let range = rest.range(of: piece) {
                if anchored && index == pieces.count - 1 {
                    // The last piece must end the path: take its last occurrence.
                    return rest.hasSuffix(piece)
                }
                rest = rest[range.upperBound...]
            } else {
                return false
            }
        }
        return !anchored || rest.isEmpty || (pieces.count > 1 && pieces.last == "")
    }
}
