import Foundation
import TrawlCore
import TrawlEngines
import TrawlFetch

/// Why a case could not be checked: the one place that tells "the site is unreachable, down or
/// not configured" (skipped, not a parser bug) from "the site changed" (graded). It reads
/// error codes and HTTP statuses, never message text.
struct SkipReason: Sendable, Hashable {
    /// For the report: `site unreachable: …`, `site down: HTTP 503 …`, `TRAWL_GIPHY_KEY not set: …`.
    var message: String
    /// Whether another attempt may go through (a site coming back; a key will not appear).
    var retry: Bool

    /// The reason a run that ended with `error` was not a check of the site, if it was not.
    /// - Parameter statuses: the HTTP statuses the run received, in order (from its recording).
    static func of(_ error: (any Error)?, statuses: [Int]) -> SkipReason? {
        guard let error else { return nil }
        if let search = error as? SearchError {
            if search.code == .missingConfiguration { return SkipReason(message: "not configured: \(search.message)", retry: false) }
            // The engines report an API's HTTP error as an invalid request: its status says whether the API is down.
            if search.code == .invalidRequest, let status = statuses.last, isDown(status) { return down(status, "\(search)") }
            return nil
        }
        if let fetch = error as? FetchError, isUnreachable(fetch.code) {
            return SkipReason(message: "site unreachable: \(fetch)", retry: true)
        }
        if let web = error as? WebError, isDown(web.status) { return down(web.status, "\(web)") }
        return nil
    }

    /// Nothing answered: no DNS, no connection, no complete response in time — the fetch
    /// layer's own table (`FetchError.Code.isTransient`, which ``FetchFailure`` reads), plus TLS: a live site whose
    /// certificate fails here is a network in the way (a proxy, a captive portal), not a site
    /// that changed, so smoke skips where the fetch layer would not retry.
    static func isUnreachable(_ code: FetchError.Code) -> Bool {
        code.isTransient || code == .tls
    }

    /// A server error, a timeout or rate limiting: the site is there but not serving
    /// (``FetchFailure``'s transient statuses).
    static func isDown(_ status: Int) -> Bool {
        FetchFailure(status: status, url: "")?.isTransient == true
    }

    static func down(_ status: Int, _ detail: String) -> SkipReason {
        SkipReason(message: "site down: \(detail)", retry: true)
    }

    /// A replayed live case that has no recording yet.
    static let notRecorded = SkipReason(
        message: "no recording yet: a live case, recorded by `trawl smoke --record` when it passes", retry: false)
}
