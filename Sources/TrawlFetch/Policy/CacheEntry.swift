import Foundation
import TrawlCore

/// A stored response: what a later request needs to decide whether it may be served, and to
/// revalidate it.
struct CacheEntry: Codable, Sendable, Hashable {
    /// The request URL (the cache key; the file name is its hash).
    var url: String
    /// Where the response came from after redirects.
    var finalURL: String
    var status: Int
    var headers: [HTTPHeaders.Field]
    /// When the response was received (unix seconds).
    var storedAt: Double
    /// The request's values of the header fields the response's `Vary` names.
    var varyValues: [String: String]
    /// The allowed ranges of the address policy the response was fetched under, when that
    /// policy refused non-public addresses (``AddressPolicy/deniesPrivate``); `nil` when it was
    /// fetched unguarded (or by a version that did not say). See ``mayServe(under:)``.
    var guardedBy: [String]? = nil

    var responseHeaders: HTTPHeaders { HTTPHeaders(headers) }

    /// Statuses RFC 9110 lets a cache store on heuristic freshness.
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Seconds the response stays fresh from when it was generated (RFC 9111 §4.2.1).
    var freshnessLifetime: Double {
        let headers = responseHeaders
        let control = CacheControl(headers["cache-control"])
        if let maxAge = control.maxAge { return maxAge }
        let date = headers["date"].flatMap(HTTPDate.parse)?.timeIntervalSince1970 ?? storedAt
        if let expires = headers["expires"] {
            // An invalid Expires (such as "0") means already expired.
            guard let expiry = HTTPDate.parse(expires) else { return 0 }
            return max(0, expiry.timeIntervalSince1970 - date)
        }
        if Self.heuristicallyCacheable.contains(status), let modified = headers["last-modified"].flatMap(HTTPDate.parse) {
            // The common heuristic: a tenth of the time since the last change.
            return max(0, (date - modified.timeIntervalSince1970) / 10)
        }
        return 0
    }

    /// The response's age now (RFC 9111 §4.2.3, with the request taking no time).
    func age(now: Double) -> Double {
        let headers = responseHeaders
        let date = headers["date"].flatMap(HTTPDate.parse)?.timeIntervalSince1970 ?? storedAt
        let apparent = max(0, storedAt - date)
        let initial = max(apparent, headers["age"].flatMap(Double.init) ?? 0)
        return initial + max(0, now - storedAt)
    }

    /// Fresh, and not marked to be revalidated on every use.
    func isFresh(now: Double) -> Bool {
        !CacheControl(responseHeaders["cache-control"]).noCache && age(now: now) < freshnessLifetime
    }

    /// It can be revalidated with a conditional request.
    var hasValidator: Bool { responseHeaders["etag"] != nil || responseHeaders["last-modified"] != nil }

    /// Whether a request under `policy` may be served this stored response without a fetch.
    ///
    /// An unguarded policy takes anything. A guarding one takes only a response fetched under
    /// a policy that refused at least what it refuses (every hop of that fetch was checked as
    /// its socket opened): where a name points now says nothing about where it pointed when the
    /// response was stored, so a name that led inside when an unguarded run stored it must not
    /// be served from the cache to a guarded one, whatever it resolves to today. Anything else
    /// is treated as not stored: the live fetch checks it, and its answer replaces the entry.
    func mayServe(under policy: AddressPolicy) -> Bool {
        guard policy.isGuarding else { return true }
        guard let guardedBy else { return false }
        let allowed = Set(policy.allowedRanges.map(\.description))
        return guardedBy.allSatisfy(allowed.contains)
    }

    /// The ``guardedBy`` value for a response fetched under `policy`.
    static func guardedBy(_ policy: AddressPolicy) -> [String]? {
        policy.isGuarding ? policy.allowedRanges.map(\.description) : nil
    }

    /// Whether a request with `headers` may be served this stored response (`Vary`, §4.1).
    func matches(requestHeaders: HTTPHeaders) -> Bool {
        let vary = responseHeaders.values(for: "vary").flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if vary.contains("*") { return false }
        return vary.allSatisfy { (requestHeaders[$0] ?? "") == (varyValues[$0] ?? "") }
    }

    /// Whether a response may be stored at all (§3).
    static func isStorable(status: Int, headers: HTTPHeaders, request: FetchRequest) -> Bool {
        guard request.method == "GET" else { return false }
        // Part of a body (a probe's first bytes, a range) is never stored as the whole.
        guard request.maxBodyBytes == nil, request.headers["range"] == nil, status != 206 else { return false }
        let control = CacheControl(headers["cache-control"])
        if control.noStore || CacheControl(request.headers["cache-control"]).noStore { return false }
        if headers.values(for: "vary").contains(where: { $0.contains("*") }) { return false }
        if heuristicallyCacheable.contains(status) { return true }
        return control.maxAge != nil || headers["expires"] != nil
    }

    /// The response headers after a 304: its fields replace the stored ones of the same name
    /// (§3.2), except the framing fields of the stored body.
    mutating func refresh(with notModified: HTTPHeaders, now: Double) {
        var merged = responseHeaders
        let keep: Set<String> = ["content-length", "content-encoding", "transfer-encoding", "content-type"]
        for name in Set(notModified.map { $0.name.lowercased() }) where !keep.contains(name) {
            merged.remove(name: name)
            for value in notModified.values(for: name) { merged.add(name: name, value: value) }
        }
        headers = merged.fields
        storedAt = now
    }
}
