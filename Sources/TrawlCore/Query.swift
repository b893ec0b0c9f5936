public import Foundation

/// What the user typed, parsed.
///
/// `!giphy cats rating:g lang:"en us"` parses to the command `giphy`, the parameters
/// `["rating": "g", "lang": "en us"]` and the term `cats`. A term that is a URL sets ``url``
/// (see ``QueryLocation``: a pasted `www.example.com/…` counts, a local path or a broken URL
/// does not, and says why in ``location``); anything else leaves it `nil`.
///
/// - The first `!word` is the command (lower-cased); later ones stay in the term.
/// - `key:value` and `key:"quoted value"` are parameters; the first value for a key wins.
/// - A token that looks like a URL (`https://…`, `//…`, `htp:/…`, `localhost:8080/x`,
///   `javascript:…`) is never a parameter.
public struct Query: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The text as given.
    public var raw: String
    /// The engine picked with `!name`, lower-cased, without the `!`.
    public var command: String?
    /// `key:value` pairs; keys are lower-cased.
    public var parameters: [String: String]
    /// The rest of the text, tokens joined by single spaces.
    public var term: String
    /// The term as a URL Trawl can read: `http(s)` with a host, `file:`, `data:`, or a pasted
    /// `www.…` / `host.tld/path` made `https`.
    public var url: URL?
    /// What the term says about where it points, including why it cannot be read when it looks
    /// like a URL or a path but is not one.
    public var location: QueryLocation { url.map(QueryLocation.url) ?? QueryLocation(term: term) }
    /// The scheme the term starts with, lower-cased, whether or not the term is a well-formed
    /// URL: `!web DATA:text/html,<b> hi` has the term scheme `data` and no ``url``
    /// (``QueryLocation/leadingScheme(of:)``). `nil` for a term that does not start with `scheme:`.
    public var termScheme: String? { QueryLocation.leadingScheme(of: term) }

    public init(raw: String, command: String?, parameters: [String: String], term: String, url: URL?) {
        self.raw = raw
        self.command = command
        self.parameters = parameters
        self.term = term
        self.url = url
    }

    /// Parses what a user typed.
    public init(parsing text: String) {
        var command: String?
        var parameters: [String: String] = [:]
        var termTokens: [String] = []
        for token in Self.tokenize(text) {
            if command == nil, !token.quoted, token.text.count > 1, token.text.first == "!" {
                command = String(token.text.dropFirst()).lowercased()
                continue
            }
            if !token.quoted, let (key, value) = Self.parameter(in: token.text) {
                if parameters[key] == nil { parameters[key] = value }
                continue
            }
            termTokens.append(token.text)
        }
        let term = termTokens.joined(separator: " ")
        self.init(raw: text, command: command, parameters: parameters, term: term, url: Self.url(from: term))
    }

    public var description: String { raw }

    /// The term as a readable URL (``QueryLocation/url``): `cats` and `mailto:x@y` are not.
    static func url(from term: String) -> URL? {
        QueryLocation(term: term).url
    }

    struct Token { var text: String; var quoted: Bool }

    /// Splits on whitespace; double quotes group words (`key:"two words"` or `"two words"`).
    static func tokenize(_ text: String) -> [Token] {
        var tokens: [Token] = []
        var current = ""
        var inQuotes = false
        var sawQuote = false
        var quotedWhole = false
        for character in text {
            if character == "\"" {
                if !inQuotes && current.isEmpty { quotedWhole = true }
                inQuotes.toggle()
                sawQuote = true
                continue
            }
            if character.isWhitespace && !inQuotes {
                if !current.isEmpty || sawQuote { tokens.append(Token(text: current, quoted: quotedWhole)) }
                current = ""
                sawQuote = false
                quotedWhole = false
                continue
            }
            current.append(character)
        }
        if !current.isEmpty || sawQuote { tokens.append(Token(text: current, quoted: quotedWhole)) }
        return tokens
    }

    /// `key:value` where key is a word and value is non-empty and not the rest of a URL.
    static func parameter(in token: String) -> (String, String)? {
        guard let colon = token.firstIndex(of: ":") else { return nil }
        let key = token[..<colon]
        let value = token[token.index(after: colon)...]
        // `file:page.html`, `data:…`, `https:…` are URLs (or broken ones), never parameters;
        // nor are `htp:/host/…` and `localhost:8080/x`, URLs with a mistyped or missing scheme,
        // nor `javascript:…`, `view-source:…` and the other schemes a browser acts on.
        guard !key.isEmpty, !value.isEmpty, !value.hasPrefix("//"), !QueryLocation.isBrokenURL(Substring(token)),
            !QueryLocation.readableSchemes.contains(key.lowercased()), !QueryLocation.nonWebSchemes.contains(key.lowercased()),
            key.first!.isLetter,
            key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
        else { return nil }
        return (key.lowercased(), String(value))
    }
}
