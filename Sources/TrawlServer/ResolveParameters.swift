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

    /// Refuses what the server never fetches, naming the input: a local path, or a term — after
    /// any `!command` and `key:value` filters — whose scheme is not the web's, however it is
    /// spelled (` DATA:`, `!web data:… with spaces`, `rating:g file:…`;
    /// ``QueryLocation/leadingScheme(of:)``).
    static func check(_ text: String) throws {
        let shown = Self.shown(text)
        let query = Query(parsing: text)
        if QueryLocation.isLocalPath(text) || (Self.webCommands.contains(query.command ?? "") && QueryLocation.isLocalPath(query.term)) {
            throw APIError.usage("unsupported-scheme", "'\(shown)' is a local path: the server fetches only http and https pages")
        }
        for scheme in [QueryLocation.leadingScheme(of: text), query.termScheme].compactMap({ $0 })
        where QueryLocation.nonWebSchemes.contains(scheme) {
            throw APIError.usage("unsupported-scheme", "'\(shown)': the scheme '\(scheme)' is not http or https")
        }
        if let url = query.url, let scheme = url.scheme?.lowercased(), scheme != "http" && scheme != "https" {
            throw APIError.usage("unsupported-scheme", "'\(shown)': the scheme '\(scheme)' is not http or https")
        }
        if query.command == nil, let problem = query.location.problem {
            throw APIError.usage("invalid-url", Redaction.text(problem))
        }
    }

    /// The commands of the web engine, which reads its term as a page to fetch.
    static let webCommands: Set<String> = ["web", "url"]

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
