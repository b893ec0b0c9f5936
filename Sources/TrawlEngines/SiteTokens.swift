import Foundation
import TrawlCore

/// The site tokens (``SiteToken``) one run has fetched, one per site, shared by every page the
/// run resolves: a batch of Redgifs links asks for one token, not one per link.
actor SiteTokens {
    private var tokens: [String: String] = [:]

    /// The token `site` holds, fetching one with `fetch` when it has none.
    /// - Throws: what `fetch` throws (the token endpoint failed or answered no token).
    func token(for site: String, fetch: @Sendable () async throws -> String) async throws -> String {
        if let token = tokens[site] { return token }
        let token = try await fetch()
        // Another page may have fetched one meanwhile: either is good, keep the first.
        if let kept = tokens[site] { return kept }
        tokens[site] = token
        return token
    }

    /// Forgets `token` (a source answered 401 with it); a newer token another page fetched stays.
    func expire(_ token: String, of site: String) {
        if tokens[site] == token { tokens[site] = nil }
    }
}

/// A site's token endpoint did not answer with a token.
struct SiteTokenError: Error, Sendable, CustomStringConvertible {
    var site: String
    var url: String
    var reason: String
    var description: String { "\(site) token from \(Redaction.url(url)): \(reason)" }
}
