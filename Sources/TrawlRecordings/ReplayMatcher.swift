import Foundation
import TrawlCore

/// How replay decides that a request is the one an entry recorded.
///
/// First the exact URL (scheme and host lower-cased, default port and fragment dropped). Then a
/// looser key: the same method, host and path, and the same query parameters once volatile ones
/// are set aside — cache busters and request ids (`_`, `cb`, `cid`, `rid`, `ts`, …), scrubbed
/// secrets (`api_key`, `key`, `X-Amz-Signature`: ``Redaction/isSecret(name:value:)``) and any parameter whose recorded value is the scrub
/// placeholder — in any order.
public struct ReplayMatcher: Sendable, Hashable {
    /// Query parameters that change on every request and never change the answer.
    public var volatileParameters: Set<String>

    public static let defaultVolatileParameters: Set<String> = [
        "_", "cb", "cachebust", "cachebuster", "cache_bust", "nocache", "ts", "timestamp", "time", "t", "cid", "rid",
        "nonce", "rnd", "random", "request_id", "requestid", "utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term",
        "fbclid", "gclid", "ref_src",
    ]

    public init(volatileParameters: [String] = [], scrubber: Scrubber = Scrubber()) {
        self.volatileParameters = Self.defaultVolatileParameters.union(volatileParameters.map { $0.lowercased() })
            .union(scrubber.queryParameters)
    }

    /// The exact key: `GET https://host/path?query`.
    public func exactKey(method: String, url: String) -> String {
        guard var parts = URLComponents(string: url) else { return method.uppercased() + " " + url }
        parts.fragment = nil
        parts.scheme = parts.scheme?.lowercased()
        parts.host = parts.host?.lowercased()
        if (parts.scheme == "https" && parts.port == 443) || (parts.scheme == "http" && parts.port == 80) { parts.port = nil }
        if parts.path.isEmpty { parts.path = "/" }
        return method.uppercased() + " " + (parts.string ?? url)
    }

    /// The loose key: scheme folded, volatile parameters out, the rest sorted.
    public func looseKey(method: String, url: String) -> String {
        guard let parts = URLComponents(string: url), let host = parts.host?.lowercased() else { return exactKey(method: method, url: url) }
        let query = (parts.percentEncodedQueryItems ?? [])
            .filter {
                !volatileParameters.contains($0.name.lowercased()) && !Redaction.isSecret(name: $0.name, value: $0.value ?? "")
                    && $0.value != Scrubber.placeholder
            }
            .map { "\($0.name)=\($0.value ?? "")" }
            .sorted()
        var port = ""
        if let p = parts.port, !((parts.scheme == "https" && p == 443) || (parts.scheme == "http" && p == 80)) { port = ":\(p)" }
        let path = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        return method.uppercased() + " //" + host + port + path + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    /// The recorded URLs most like `url`: same host first, then the longest shared prefix.
    public func closest(to url: String, among recorded: [String], count: Int = 3) -> [String] {
        let host = URLComponents(string: url)?.host?.lowercased()
        func score(_ candidate: String) -> (Int, Int) {
            let sameHost = URLComponents(string: candidate)?.host?.lowercased() == host ? 1 : 0
            let shared = zip(candidate.utf8, url.utf8).prefix { $0 == $1 }.count
            return (sameHost, shared)
        }
        return Array(
            Set(recorded).sorted { a, b in
                let (sa, sb) = (score(a), score(b))
                return sa != sb ? sa > sb : a < b
            }.prefix(count))
    }
}
