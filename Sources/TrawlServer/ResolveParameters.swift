import Foundation
import Hummingbird
import TrawlCore

/// `GET /v1/resolve`'s query, read and checked: `q` (a page URL, `!engine words`, or a
/// search), `cursor` (a `next` token from an earlier answer) and `limit`.
///
/// The server fetches only http and https pages: a local path, a `file:` or `data:` URL is
/// refused (`400`) here, before any engine sees it, and so is text that looks like a URL but
/// is not one (never sent to a search engine instead).
struct ResolveParameters: Sendable, Hashable {
    var text: String
    var pagination: Pagination
    var limit: Int?
    /// `probe=true`: each media URL checked (``MediaProber``); `keepDead=true` keeps the dead.
    var probe = false
    var keepDead = false
    /// `explain=true`: each media's evidence and the rule that kept it, and what was dropped.
    var explain = false

    /// - Parameters:
    ///   - parameters: the request's query.
    ///   - maxLimit: the most `limit` may be.
    ///   - probing: `probe` and `keepDead` when the query does not say (`trawl serve --probe`,
    ///     `--keep-dead`).
    init(_ parameters: FormQuery, maxLimit: Int, probing: ProbeDefaults = ProbeDefaults()) throws {
        let text = (parameters.get("q") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else {
            throw APIError.usage("empty-query", "'q' is missing: give a page URL or a search, as in /v1/resolve?q=https://…")
        }
        try Self.check(text)
        self.text = text
        if let cursor = parameters.get("cursor"), !cursor.isEmpty {
            guard let pagination = Pagination(token: cursor) else {
                throw APIError.usage("invalid-cursor", "cursor '\(Self.shown(cursor))' is not a 'next' token from an earlier answer")
            }
            self.pagination = pagination
        } else {
            pagination = .start
        }
        probe = try parameters.flag("probe", default: probing.probe)
        // Without probing there is nothing dead to keep: `keepDead` alone changes nothing.
        keepDead = try parameters.flag("keepDead", default: probing.keepDead) && probe
        explain = try parameters.flag("explain")
        if let limit = parameters.get("limit") {
            guard let value = Int(limit), (1...maxLimit).contains(value) else {
                throw APIError.usage("invalid-limit", "limit '\(Self.shown(limit))' is not a number from 1 to \(maxLimit)")
            }
            self.limit = value
        } else {
            limit = nil
        }
    }

    var request: TrawlCore.Request {
        var request = TrawlCore.Request(text, pagination: pagination, limit: limit)
        if explain { request.explain = true }
        return request
    }

    /// Refuses what the server never fetches, naming the input.
    static func check(_ text: String) throws {
        let shown = Self.shown(text)
        if QueryLocation.isLocalPath(text) {
            throw APIError.usage("unsupported-scheme", "'\(shown)' is a local path: the server fetches only http and https pages")
        }
        if let scheme = leadingScheme(text), nonWebSchemes.contains(scheme) {
            throw APIError.usage("unsupported-scheme", "'\(shown)': the scheme '\(scheme)' is not http or https")
        }
        let query = Query(parsing: text)
        if let url = query.url, let scheme = url.scheme?.lowercased(), scheme != "http" && scheme != "https" {
            throw APIError.usage("unsupported-scheme", "'\(shown)': the scheme '\(scheme)' is not http or https")
        }
        if query.command == nil, let problem = query.location.problem {
            throw APIError.usage("invalid-url", Redaction.text(problem))
        }
    }

    /// URL schemes a browser or libcurl would act on that are not the web's: refused by name
    /// even where the text is not a well-formed URL (`data:text/html,<b> hi` has spaces, so it
    /// is no URL to the parser, yet Chromium would render it).
    static let nonWebSchemes: Set<String> = [
        "about", "blob", "chrome", "chrome-extension", "chrome-untrusted", "content", "data", "devtools", "dict", "file",
        "filesystem", "ftp", "ftps", "gopher", "imap", "imaps", "intent", "jar", "javascript", "ldap", "ldaps", "mailto",
        "mqtt", "pop3", "pop3s", "resource", "rtmp", "rtsp", "scp", "sftp", "smb", "smbs", "smtp", "smtps", "telnet", "tftp",
        "vbscript", "view-source", "ws", "wss",
    ]

    /// The lower-cased scheme the text starts with (`DATA:…` → `data`), if it starts like a URL.
    static func leadingScheme(_ text: String) -> String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = Array(text[..<colon].utf8)
        let isLetter = { (byte: UInt8) in (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        let isSchemeByte = { (byte: UInt8) in isLetter(byte) || (0x30...0x39).contains(byte) || byte == 0x2B || byte == 0x2D || byte == 0x2E }
        guard let first = scheme.first, isLetter(first), scheme.allSatisfy(isSchemeByte) else { return nil }
        return String(decoding: scheme, as: UTF8.self).lowercased()
    }

    /// At most 200 characters of an input, secrets redacted, for a message.
    static func shown(_ text: String) -> String {
        let redacted = Redaction.text(text)
        return redacted.count > 200 ? String(redacted.prefix(200)) + "…" : redacted
    }
}

/// Whether resolves and sessions are probed when a request does not say (`trawl serve --probe`),
/// and whether the dead are then kept (`--keep-dead`); `probe=false` turns probing off for one.
struct ProbeDefaults: Sendable, Hashable {
    var probe = false
    var keepDead = false
}
