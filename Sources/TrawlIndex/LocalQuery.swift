import TrawlCore

/// A `!local` query read into an FTS5 match expression and facet filters.
///
/// - words match words (`cat`), any case, accents folded; `typ*` is a prefix;
/// - `"cat typing"` is a phrase;
/// - `AND`, `OR`, `NOT` (upper case) and parentheses combine them (`cat (zebra OR dog)`);
///   words and groups side by side must all match;
/// - `site:giphy`, `kind:mp4`, `size:small|medium|large|unknown` filter, a comma giving several
///   values (`kind:gif,mp4`);
/// - `animated:yes|no` filters on what a probe (`--probe`) found: media never probed, or whose
///   bytes did not say, pass neither; `min-duration:SECONDS` on the running time a probe
///   measured, else the one the source states (``TrawlCore/Media/durationSeconds``): media with
///   neither do not pass.
///
/// Every word reaches FTS5 quoted, so no text can be read as FTS5 syntax it did not mean
/// (a column name, `NEAR`, `^`); what cannot be read is an ``IndexError`` naming the query.
public struct LocalQuery: Sendable, Hashable {
    /// The FTS5 expression; `nil` when the query has only filters (everything matches).
    public var match: String?
    public var sites: Set<String>
    public var kinds: Set<String>
    public var sizes: Set<String>
    /// `animated:yes` (`true`) or `animated:no` (`false`): only media a probe found moving, or
    /// found still.
    public var animated: Bool?
    /// `min-duration:2.5`: only media running at least this many seconds, as a probe measured
    /// it or, unprobed, as the source states it.
    public var minDurationSeconds: Double?
    /// The query as typed, for messages.
    public var raw: String

    public static let filterKeys = ["site", "kind", "size", "animated", "min-duration"]

    /// Whether the query filters on `media`'s probe columns (`animated`, `durationSeconds`).
    var filtersOnProbe: Bool { animated != nil || minDurationSeconds != nil }

    /// Reads `raw` (the `!local` command, if there, is skipped).
    /// - Throws: ``IndexError/Code/invalidQuery`` naming the query and what is wrong in it.
    public init(parsing raw: String) throws {
        self.raw = raw
        var sites = Set<String>(), kinds = Set<String>(), sizes = Set<String>()
        var animated: Bool?
        var minDuration: Double?
        var parts: [String] = []
        func fail(_ why: String) -> IndexError {
            IndexError(.invalidQuery, "cannot read the local query '\(Self.printable(raw))': \(why)")
        }
        if let control = raw.unicodeScalars.first(where: { $0.properties.generalCategory == .control && !" \t\n\r".unicodeScalars.contains($0) }) {
            throw fail("it holds the control character \(Self.printable(String(control)))")
        }
        let tokens = try Self.tokenize(raw, fail: fail)
        var first = true
        for token in tokens {
            defer { first = false }
            switch token {
            case .phrase(let text, let prefix):
                let words = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
                guard !words.isEmpty else { throw fail("an empty phrase \"\"") }
                parts.append(Self.quoted(words) + (prefix ? "*" : ""))
            case .open: parts.append("(")
            case .close: parts.append(")")
            case .word(let word):
                if first, word.hasPrefix("!") { continue }
                if ["AND", "OR", "NOT"].contains(word) {
                    parts.append(word)
                    continue
                }
                if let colon = word.firstIndex(of: ":"), colon != word.startIndex,
                    !word[word.index(after: colon)...].hasPrefix("//")
                {
                    let key = word[..<colon].lowercased()
                    let values = word[word.index(after: colon)...].lowercased().split(separator: ",").map(String.init)
                    switch key {
                    case "site": sites.formUnion(values.map(SiteName.of(host:))); continue
                    case "kind":
                        for value in values where MediaKind(rawValue: value) == nil {
                            throw fail("kind:\(value) is not a kind (\(MediaKind.allCases.map(\.rawValue).joined(separator: ", ")))")
                        }
                        kinds.formUnion(values); continue
                    case "size":
                        for value in values where SizeClass(rawValue: value) == nil {
                            throw fail("size:\(value) is not a size (small, medium, large, unknown)")
                        }
                        sizes.formUnion(values); continue
                    case "animated":
                        let wanted = Set(values.map { ["yes", "true"].contains($0) ? "yes" : ["no", "false"].contains($0) ? "no" : $0 })
                        guard let value = wanted.first, wanted.count == 1, value == "yes" || value == "no" else {
                            throw fail("animated:\(values.joined(separator: ",")) is not one of yes, no")
                        }
                        animated = value == "yes"
                        continue
                    case "min-duration":
                        let text = values.joined(separator: ",")
                        let number = text.hasSuffix("s") ? String(text.dropLast()) : text
                        guard let seconds = Double(number), seconds.isFinite, seconds >= 0, !number.hasPrefix("+") else {
                            throw fail("min-duration:\(text) is not a number of seconds (min-duration:2.5)")
                        }
                        minDuration = seconds
                        continue
                    default:
                        if values.isEmpty { break }
                        throw fail("\(key): is not a filter (site:, kind:, size:, animated:, min-duration:)")
                    }
                }
                let prefix = word.hasSuffix("*")
                let stem = prefix ? String(word.dropLast()) : word
                guard !stem.contains("*") else { throw fail("'\(word)': * may only end a word (typ*)") }
                guard stem.contains(where: { $0.isLetter || $0.isNumber }) else {
                    if prefix { throw fail("'\(word)': a prefix needs a letter or digit before the *") }
                    continue  // punctuation alone matches nothing and means nothing
                }
                parts.append(Self.quoted(stem) + (prefix ? "*" : ""))
            }
        }
        try Self.checkStructure(parts, fail: fail)
        match = parts.isEmpty ? nil : Self.joined(parts)
        self.sites = sites
        self.kinds = kinds
        self.sizes = sizes
        self.animated = animated
        self.minDurationSeconds = minDuration
    }

    /// The parts as one FTS5 expression, with `AND` written out beside a group: FTS5 reads two
    /// phrases side by side as both, but not a phrase or group beside a group
    /// (`"cat" ( "zebra" OR "dog" )` is a syntax error to it).
    private static func joined(_ parts: [String]) -> String {
        let operators: Set<String> = ["AND", "OR", "NOT"]
        var out: [String] = []
        for part in parts {
            if let last = out.last, !operators.contains(last), last != "(", !operators.contains(part), part != ")",
                last == ")" || part == "("
            {
                out.append("AND")
            }
            out.append(part)
        }
        return out.joined(separator: " ")
    }

    /// `text` with control characters written as `U+0000`, for messages.
    static func printable(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Operators need something on both sides (`NOT` too: FTS5's is binary), parentheses must
    /// balance and hold something.
    private static func checkStructure(_ parts: [String], fail: (String) -> IndexError) throws {
        let operators: Set<String> = ["AND", "OR", "NOT"]
        var depth = 0
        var previous: String?
        for part in parts {
            if operators.contains(part) {
                guard let previous, previous != "(", !operators.contains(previous) else {
                    throw fail("\(part) needs a word before it")
                }
            } else if part == "(" {
                depth += 1
            } else if part == ")" {
                guard depth > 0 else { throw fail("a ) without its (") }
                guard let previous, previous != "(" else { throw fail("empty parentheses") }
                guard !operators.contains(previous) else { throw fail("\(previous) needs a word after it") }
                depth -= 1
            }
            previous = part
        }
        if let previous, operators.contains(previous) { throw fail("\(previous) needs a word after it") }
        if depth > 0 { throw fail("a ( without its )") }
    }

    enum Token: Equatable {
        case word(String)
        case phrase(String, prefix: Bool)
        case open, close
    }

    /// Splits on blanks; double quotes make a phrase (a `*` right after the closing quote makes
    /// its last word a prefix); parentheses outside quotes are tokens of their own.
    static func tokenize(_ text: String, fail: (String) -> IndexError) throws -> [Token] {
        var tokens: [Token] = []
        var current = ""
        var phrase: String?
        var index = text.startIndex
        func endWord() {
            if !current.isEmpty { tokens.append(.word(current)) }
            current = ""
        }
        while index < text.endIndex {
            let character = text[index]
            index = text.index(after: index)
            if var open = phrase {
                if character == "\"" {
                    let prefix = index < text.endIndex && text[index] == "*"
                    if prefix { index = text.index(after: index) }
                    // `key:"two words"` is a filter with a quoted value.
                    if !current.isEmpty, current.hasSuffix(":") {
                        tokens.append(.word(current + open))
                        current = ""
                    } else {
                        endWord()
                        tokens.append(.phrase(open, prefix: prefix))
                    }
                    phrase = nil
                } else {
                    open.append(character)
                    phrase = open
                }
                continue
            }
            switch character {
            case "\"":
                if !current.hasSuffix(":") { endWord() }
                phrase = ""
            case "(":
                endWord()
                tokens.append(.open)
            case ")":
                endWord()
                tokens.append(.close)
            case _ where character.isWhitespace:
                endWord()
            default:
                current.append(character)
            }
        }
        if phrase != nil { throw fail("a \" without its closing \"") }
        endWord()
        return tokens
    }
}
