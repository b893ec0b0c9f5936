public import Foundation

/// What a query's term says about where it points: a URL to read, text to search for, or
/// something that looks like a place but cannot be read — which must never leave the machine
/// as a search query.
public enum QueryLocation: Sendable, Hashable {
    /// Plain text: a search.
    case none
    /// A URL to read: `http(s)` with a host, `file:` with an absolute path, `data:`; a pasted
    /// `www.example.com/…`, `example.com/path` or `//example.com/…` becomes `https`.
    case url(URL)
    /// The term looks like a URL or a local path but is not a URL Trawl can read; the sentence
    /// names the input and says why.
    case unusable(String)

    /// Schemes whose URLs Trawl reads.
    public static let readableSchemes: Set<String> = ["http", "https", "file", "data"]

    /// Classifies a query term.
    public init(term: String) {
        // Not trimmed: a quoted term keeps its blanks, and a URL with blanks around it (from
        // quotes) is not a URL (found by fuzz-query).
        let text = term
        guard !text.isEmpty else {
            self = .none
            return
        }
        let firstToken = text.prefix(while: { !$0.isWhitespace })
        let spaced = firstToken.count != text.count
        if let scheme = Self.scheme(of: firstToken) {
            self = Self.classify(text, scheme: scheme, spaced: spaced)
        } else if firstToken.hasPrefix("//") {
            self = Self.pasted(text, spaced: spaced, prefix: "https:")
        } else if Self.isLocalPath(firstToken) {
            self = .unusable("'\(text)' is a local path, not a URL; pass it as a file: URL (file:///…)")
        } else if let typo = Self.schemeTypo(firstToken) {
            self = .unusable("'\(text)' is not a URL: '\(typo):' is not a scheme Trawl reads (http://, https://, file:, data:)")
        } else if let host = Self.hostWithoutScheme(firstToken) {
            self = .unusable("'\(text)' names the host '\(host)' without a scheme; write http://\(firstToken) or https://\(firstToken)")
        } else if Self.isBareHost(firstToken) {
            self = Self.pasted(text, spaced: spaced, prefix: "https://")
        } else if !spaced, Self.isFileName(firstToken) {
            self = .unusable("'\(text)' is a file name, not a URL; pass a saved page as a path (./\(text)) or a file: URL")
        } else {
            self = .none
        }
    }

    /// The URL, when there is one.
    public var url: URL? {
        if case .url(let url) = self { return url }
        return nil
    }

    /// Why the term cannot be read, when it looks like a place but is not one.
    public var problem: String? {
        if case .unusable(let problem) = self { return problem }
        return nil
    }

    /// `https:` in `https://…`; a scheme needs `//` after it, except `file:` and `data:`.
    private static func scheme(of token: Substring) -> String? {
        guard let colon = token.firstIndex(of: ":"), colon > token.startIndex else { return nil }
        let name = token[..<colon]
        guard let first = name.first, first.isASCII, first.isLetter,
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") })
        else { return nil }
        let scheme = name.lowercased()
        let rest = token[token.index(after: colon)...]
        guard rest.hasPrefix("//") || scheme == "file" || scheme == "data" || scheme == "http" || scheme == "https" else { return nil }
        return scheme
    }

    private static func classify(_ text: String, scheme: String, spaced: Bool) -> QueryLocation {
        guard !spaced else { return .unusable("'\(text)' is not a URL: it contains a space") }
        guard readableSchemes.contains(scheme) else {
            return .unusable("'\(text)' has the scheme '\(scheme)'; Trawl reads http, https, file and data URLs")
        }
        guard let url = URL(string: text) else { return .unusable("'\(text)' is not a valid URL") }
        switch scheme {
        case "file":
            let host = url.host ?? ""
            guard host.isEmpty || host == "localhost", url.path.hasPrefix("/"), url.path.count > 1 else {
                return .unusable("'\(text)' is not a file URL with an absolute path (file:///path/to/page.html)")
            }
        case "data":
            guard text.contains(",") else { return .unusable("'\(text)' is not a data URL (data:[type],content)") }
        default:
            guard let host = url.host, !host.isEmpty else { return .unusable("'\(text)' is not a URL: it has no host") }
            guard isPlausibleHost(host) else { return .unusable("'\(text)' is not a URL: '\(host)' is not a host name") }
        }
        return .url(url)
    }

    /// A URL pasted without its scheme.
    private static func pasted(_ text: String, spaced: Bool, prefix: String) -> QueryLocation {
        guard !spaced else { return .unusable("'\(text)' is not a URL: it contains a space") }
        guard let url = URL(string: prefix + text), let host = url.host, !host.isEmpty, isPlausibleHost(host) else {
            return .unusable("'\(text)' looks like a URL but is not a valid one")
        }
        return .url(url)
    }

    /// URL schemes a browser, libcurl or Trawl itself would act on that are not the web's
    /// (`data:`, `file:`, `javascript:`, `view-source:`, `ws:`, `ftp:`…). A `key:value` token
    /// whose key is one of these is never a ``Query`` parameter: it stays in the term, where
    /// whoever decides what may be fetched sees it (``Query/termScheme``).
    public static let nonWebSchemes: Set<String> = [
        "about", "blob", "chrome", "chrome-extension", "chrome-untrusted", "content", "data", "devtools", "dict", "file",
        "filesystem", "ftp", "ftps", "gopher", "imap", "imaps", "intent", "jar", "javascript", "ldap", "ldaps", "mailto",
        "mqtt", "pop3", "pop3s", "resource", "rtmp", "rtsp", "scp", "sftp", "smb", "smbs", "smtp", "smtps", "telnet", "tftp",
        "vbscript", "view-source", "ws", "wss",
    ]

    /// The lower-cased scheme `text` starts with, read as a browser reads a URL's start: leading
    /// blanks and control characters skipped, tabs and line breaks inside ignored, any case
    /// (` DATA:text/html,<b> hi` → `data`). `nil` when it does not start with `scheme:`. Whether
    /// the rest is a well-formed URL does not matter: Chromium renders `data:` with spaces.
    public static func leadingScheme(of text: some StringProtocol) -> String? {
        var scheme: [UInt8] = []
        var started = false
        var colon = false
        for byte in text.utf8 {
            if !started && byte <= 0x20 { continue }
            started = true
            if byte == 0x09 || byte == 0x0A || byte == 0x0D { continue }
            if byte == UInt8(ascii: ":") {
                colon = true
                break
            }
            let isLetter = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            let isSchemeByte = isLetter || (0x30...0x39).contains(byte) || byte == 0x2B || byte == 0x2D || byte == 0x2E
            guard scheme.isEmpty ? isLetter : isSchemeByte else { return nil }
            scheme.append(byte)
        }
        guard colon, !scheme.isEmpty else { return nil }
        return String(decoding: scheme, as: UTF8.self).lowercased()
    }

    /// `/abs`, `./rel`, `../rel`, `~/home`, `~`: a file on this machine, not a URL.
    public static func isLocalPath(_ token: some StringProtocol) -> Bool {
        token.hasPrefix("/") || token.hasPrefix("./") || token.hasPrefix("../") || token.hasPrefix("~/") || token == "~"
            || token == "." || token == ".."
    }

    /// A URL with a mistyped scheme (``schemeTypo(_:)``) or none before a host and port
    /// (``hostWithoutScheme(_:)``): what ``Query`` must not read as a `key:value` parameter.
    static func isBrokenURL(_ token: Substring) -> Bool {
        schemeTypo(token) != nil || hostWithoutScheme(token) != nil
    }

    /// `htp:/host/…`, `htps:/…`: a word and a colon followed by a slash, the word no scheme
    /// Trawl reads — a URL with a mistyped scheme, never a search. Returns the word.
    private static func schemeTypo(_ token: Substring) -> String? {
        guard let colon = token.firstIndex(of: ":"), colon > token.startIndex else { return nil }
        let name = token[..<colon]
        guard let first = name.first, first.isASCII, first.isLetter,
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }),
            token[token.index(after: colon)...].hasPrefix("/")
        else { return nil }
        return String(name)
    }

    /// `localhost:8080/x`, `intranet:8080/x`, `localhost/x`: a one-label host with a port and a
    /// path, or `localhost` with either, written without a scheme (which cannot be guessed:
    /// such servers mostly speak plain HTTP). Returns the host.
    private static func hostWithoutScheme(_ token: Substring) -> String? {
        let authority = token.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let host = parts[0]
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }),
            host.first?.isLetter == true
        else { return nil }
        let isLocalhost = ["localhost", "localhost."].contains(host.lowercased())
        // A dotted host is pasted as https (``isBareHost``).
        guard isLocalhost || !host.contains(".") else { return nil }
        let hasPath = authority.count < token.count
        if parts.count == 2 {
            // A port: digits only, 1…65535.
            guard let port = Int(parts[1]), (1...65535).contains(port), parts[1].allSatisfy(\.isASCII) else { return nil }
            return hasPath || isLocalhost ? String(host) : nil
        }
        return isLocalhost && hasPath ? String(host) : nil
    }

    /// Extensions of saved pages and archives: `saved-page.html` on its own names a file.
    public static let fileExtensions: Set<String> = ["html", "htm", "xhtml", "shtml", "mht", "mhtml", "har", "webarchive"]

    /// `saved-page.html`, `pages/cat.htm`: a file name with a page's extension (not a host:
    /// no top-level domain is named so).
    public static func isFileName(_ token: some StringProtocol) -> Bool {
        guard !token.contains(where: \.isWhitespace), !token.contains(":"), let dot = token.lastIndex(of: ".") else { return false }
        let name = token[token.index(after: dot)...]
        return fileExtensions.contains(name.lowercased()) && dot > token.startIndex && token[token.index(before: dot)] != "/"
    }

    /// `www.example.com…`, or `example.com/path` (a dotted host followed by a path).
    private static func isBareHost(_ token: Substring) -> Bool {
        let hostPart = token.prefix(while: { $0 != "/" && $0 != "?" && $0 != "#" })
        let host = hostPart.split(separator: ":", maxSplits: 1).first ?? hostPart
        guard host.contains("."), !host.hasPrefix("."), !host.hasSuffix("."),
            host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" })
        else { return false }
        if host.lowercased().hasPrefix("www.") { return true }
        let labels = host.split(separator: ".")
        // `example.com/…`: the last label reads as a top-level domain, and a path follows.
        guard let tld = labels.last, tld.count >= 2, tld.allSatisfy(\.isLetter) else { return false }
        return hostPart.count < token.count
    }

    /// Letters, digits, dots, dashes, an IPv6 literal; no empty labels.
    private static func isPlausibleHost(_ host: String) -> Bool {
        if host.hasPrefix("[") || host.contains(":") { return true }
        guard !host.hasPrefix("."), !host.contains("..") else { return false }
        return host.allSatisfy { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" || $0 == "%" }
    }
}
