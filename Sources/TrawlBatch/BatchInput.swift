import Foundation
import TrawlCore
import TrawlStore

/// What one line of a URL list is.
enum BatchInput: Equatable {
    /// A blank line or a `#` comment.
    case skip
    /// A fetchable URL: its normalised form (see ``classify(_:maxLength:keepsFragment:)``) and the
    /// host politeness is counted against.
    case url(input: String, normalized: String, host: String)
    /// A line that can never succeed, with a code and a reason naming it.
    case rejected(input: String, code: String, reason: String)

    static let schemes: Set<String> = ["http", "https"]

    /// Classifies `bytes` (one line, at most `maxLength + 1` bytes kept by the reader).
    /// - Parameter keepsFragment: keep the URL's `#fragment` in its normalised form, which is the
    ///   job's identity and the URL it resolves. A rendered page may read its fragment (a
    ///   hash-routed app's `#/gif/abc` is a page of its own); a page that is only fetched never
    ///   sends it (libcurl leaves it out), so without a browser two lines that differ only by
    ///   their fragments are one job.
    static func classify(_ bytes: [UInt8], maxLength: Int, keepsFragment: Bool) -> BatchInput {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            let shown = String(decoding: bytes.prefix(200), as: UTF8.self)
            return .rejected(input: shown, code: "invalid-utf8", reason: "the line is not valid UTF-8: \(shown.debugDescription)")
        }
        let trimmed = text.trimmedWhitespace
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return .skip }
        if bytes.count > maxLength {
            let head = String(trimmed.prefix(80))
            return .rejected(input: head + "…", code: "line-too-long", reason: "the line is longer than \(maxLength) bytes: \(head)…")
        }
        guard !trimmed.contains(where: { $0 == " " || $0 == "\t" }), let url = URL(string: trimmed),
            let scheme = url.scheme?.lowercased()
        else {
            return .rejected(input: trimmed, code: "invalid-url", reason: "'\(trimmed)' is not a URL")
        }
        guard schemes.contains(scheme) else {
            return .rejected(input: trimmed, code: "unsupported-scheme", reason: "'\(trimmed)': the scheme '\(scheme)' is not http or https")
        }
        guard let host = url.host?.lowercased(), !host.isEmpty else {
            return .rejected(input: trimmed, code: "invalid-url", reason: "'\(trimmed)' has no host")
        }
        var normalized = CanonicalURL.normalize(trimmed)
        if keepsFragment, let hash = trimmed.firstIndex(of: "#"), trimmed.index(after: hash) != trimmed.endIndex {
            normalized += trimmed[hash...]
        }
        return .url(input: trimmed, normalized: normalized, host: host)
    }
}
