import Foundation
import TrawlCore
import TrawlStore

/// What one line of a URL list is.
enum BatchInput: Equatable {
    /// A blank line or a `#` comment.
    case skip
    /// A fetchable URL: its normalised form and the host politeness is counted against.
    case url(input: String, normalized: String, host: String)
    /// A line that can never succeed, with a code and a reason naming it.
    case rejected(input: String, code: String, reason: String)

    static let schemes: Set<String> = ["http", "https"]

    /// Classifies `bytes` (one line, at most `maxLength + 1` bytes kept by the reader).
    static func classify(_ bytes: [UInt8], maxLength: Int) -> BatchInput {
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
        return .url(input: trimmed, normalized: CanonicalURL.normalize(trimmed), host: host)
    }
}
