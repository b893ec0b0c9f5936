import Foundation
import TrawlCore

/// Takes secrets out of what is recorded, before anything is written.
///
/// Query parameters and headers are judged by ``Redaction/isSecret(name:value:)`` — the one
/// decision messages are redacted by too: names whose words say secret (`api_key`,
/// `X-Amz-Signature`, `X-Goog-Credential`, `sig`, `refresh_token`, `Authorization`,
/// `X-Api-Key`…) and values that look like credentials (`Bearer …`, a JSON Web Token) — plus
/// `Cookie`, `Set-Cookie` and any names given. Their values become ``placeholder`` in URLs
/// wherever they appear — request URL, headers, bodies, JSON-escaped or entity-encoded — and so
/// do string values of JSON fields with secret names. Every secret value found that way is
/// then also replaced wherever else it occurs verbatim (an API key echoed inside a `next` URL,
/// a token in a script).
///
/// Replay ignores secret query parameters when it matches, so a live request carrying the
/// real key still finds the recording made with the placeholder.
public struct Scrubber: Sendable, Hashable {
    /// What a scrubbed value becomes.
    public static let placeholder = "REDACTED"

    /// Header names scrubbed beside those ``Redaction/isSecret(name:value:)`` finds, lower-cased.
    public var headers: Set<String>
    /// Query parameter names scrubbed beside those ``Redaction/isSecret(name:value:)`` finds,
    /// lower-cased.
    public var queryParameters: Set<String>
    /// JSON field names whose string values are secrets, lower-cased.
    public var jsonFields: Set<String>

    /// Headers that hold secrets though their names do not say so.
    public static let defaultHeaders: Set<String> = ["cookie", "set-cookie", "x-client-transaction-id"]
    public static let defaultJSONFields: Set<String> = [
        "api_key", "apikey", "access_token", "refresh_token", "id_token", "token", "password", "secret", "client_secret", "session_id",
    ]

    /// - Parameters: extra names to scrub on top of the defaults.
    public init(headers: [String] = [], queryParameters: [String] = [], jsonFields: [String] = []) {
        self.headers = Self.defaultHeaders.union(headers.map { $0.lowercased() })
        self.queryParameters = Set(queryParameters.map { $0.lowercased() })
        self.jsonFields = Self.defaultJSONFields.union(jsonFields.map { $0.lowercased() })
    }

    /// Whether the query parameter `name` with `value` is scrubbed.
    public func isSecret(queryParameter name: some StringProtocol, value: some StringProtocol) -> Bool {
        queryParameters.contains(name.lowercased()) || Redaction.isSecret(name: name, value: String(value).removingPercentEncoding ?? String(value))
    }

    /// Whether the header `name` with `value` is scrubbed.
    public func isSecret(header name: some StringProtocol, value: some StringProtocol) -> Bool {
        headers.contains(name.lowercased()) || Redaction.isSecret(name: name, value: value)
    }

    /// The entry without secrets.
    public func scrub(_ entry: HAREntry) -> HAREntry {
        var secrets = Set<String>()
        var entry = entry
        entry.request.url = scrubQuery(in: entry.request.url, secrets: &secrets)
        entry.request.headers = entry.request.headers.map { scrub($0, secrets: &secrets) }
        entry.request.queryString = entry.request.queryString.map { pair in
            guard isSecret(queryParameter: pair.name, value: pair.value), pair.value != Self.placeholder else { return pair }
            secrets.insert(pair.value)
            return HAREntry.NameValue(name: pair.name, value: Self.placeholder)
        }
        entry.request.cookies = entry.request.cookies.map { scrub($0, secrets: &secrets) }
        entry.response.cookies = entry.response.cookies.map { scrub($0, secrets: &secrets) }
        entry.response.headers = entry.response.headers.map { scrub($0, secrets: &secrets) }
        entry.response.redirectURL = scrubQuery(in: entry.response.redirectURL, secrets: &secrets)
        if let url = entry.finalURL { entry.finalURL = scrubQuery(in: url, secrets: &secrets) }
        if let text = entry.request.postData?.text { entry.request.postData?.text = scrubText(text, secrets: &secrets) }
        if let text = entry.response.content.text, entry.response.content.encoding?.lowercased() != "base64" {
            entry.response.content.text = scrubText(text, secrets: &secrets)
        }
        // Second pass: each secret wherever else it appears verbatim. Short values ("1", "en")
        // would wreck unrelated text, so only values long enough to be secrets count.
        let verbatim = secrets.filter { $0.count >= 6 && $0 != Self.placeholder }.sorted { $0.count > $1.count }
        guard !verbatim.isEmpty else { return Self.resized(entry) }
        func replace(_ text: String) -> String {
            verbatim.reduce(text) { $0.replacingOccurrences(of: $1, with: Self.placeholder) }
        }
        entry.request.url = replace(entry.request.url)
        entry.request.headers = entry.request.headers.map { .init(name: $0.name, value: replace($0.value)) }
        entry.request.queryString = entry.request.queryString.map { .init(name: $0.name, value: replace($0.value)) }
        entry.response.headers = entry.response.headers.map { .init(name: $0.name, value: replace($0.value)) }
        entry.response.redirectURL = replace(entry.response.redirectURL)
        entry.finalURL = entry.finalURL.map(replace)
        if let text = entry.request.postData?.text { entry.request.postData?.text = replace(text) }
        if let text = entry.response.content.text, entry.response.content.encoding?.lowercased() != "base64" {
            entry.response.content.text = replace(text)
        }
        return Self.resized(entry)
    }

    /// A text body's size is its UTF-8 length, which scrubbing may have changed.
    static func resized(_ entry: HAREntry) -> HAREntry {
        var entry = entry
        if entry.response.content.encoding == nil, let text = entry.response.content.text {
            entry.response.content.size = text.utf8.count
            entry.response.bodySize = text.utf8.count
        }
        return entry
    }

    func scrub(_ header: HAREntry.NameValue, secrets: inout Set<String>) -> HAREntry.NameValue {
        let name = header.name.lowercased()
        if isSecret(header: header.name, value: header.value), header.value != Self.placeholder {
            collectSecrets(ofHeader: name, value: header.value, into: &secrets)
            return HAREntry.NameValue(name: header.name, value: Self.placeholder)
        }
        if name == "location" || name == "link" || name == "content-location" {
            return HAREntry.NameValue(name: header.name, value: scrubText(header.value, secrets: &secrets))
        }
        return header
    }

    func scrub(_ cookie: HAREntry.Cookie, secrets: inout Set<String>) -> HAREntry.Cookie {
        var cookie = cookie
        if cookie.value != Self.placeholder { secrets.insert(cookie.value) }
        cookie.value = Self.placeholder
        return cookie
    }

    /// Cookie values and bearer tokens, so that the verbatim pass finds them in bodies too.
    func collectSecrets(ofHeader name: String, value: String, into secrets: inout Set<String>) {
        switch name {
        case "cookie":
            for pair in value.split(separator: ";") {
                if let eq = pair.firstIndex(of: "=") { secrets.insert(String(pair[pair.index(after: eq)...]).trimmedSpaces) }
            }
        case "set-cookie":
            if let first = value.split(separator: ";").first, let eq = first.firstIndex(of: "=") {
                secrets.insert(String(first[first.index(after: eq)...]).trimmedSpaces)
            }
        default:
            secrets.insert(value)
            if let space = value.firstIndex(of: " ") { secrets.insert(String(value[value.index(after: space)...]).trimmedSpaces) }
        }
    }

    /// A URL with secret query values replaced.
    public func scrubQuery(in url: String) -> String {
        var ignored = Set<String>()
        return scrubQuery(in: url, secrets: &ignored)
    }

    func scrubQuery(in url: String, secrets: inout Set<String>) -> String {
        scrubText(url, secrets: &secrets)
    }

    /// Text with secret query values (in any URL in it) and secret JSON string fields replaced.
    func scrubText(_ text: String, secrets: inout Set<String>) -> String {
        var bytes = Array(text.utf8)
        var changed = false
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        let placeholder = Array(Self.placeholder.utf8)
        var i = 0
        let n = bytes.count
        while i < n {
            // A query parameter: after ?, &, the entity &amp; or the JSON escape \u0026.
            var nameStart = -1
            if bytes[i] == UInt8(ascii: "?") || bytes[i] == UInt8(ascii: "&") {
                nameStart = i + 1
                if bytes[i] == UInt8(ascii: "&"), Self.hasPrefix(bytes, at: i, "&amp;") { nameStart = i + 5 }
            } else if bytes[i] == UInt8(ascii: "\\"), Self.hasPrefix(bytes, at: i, "\\u0026") {
                nameStart = i + 6
            }
            if nameStart > 0 {
                var eq = nameStart
                while eq < n, eq - nameStart < 40, Self.isNameByte(bytes[eq]) { eq += 1 }
                var end = eq + 1
                while end < n, !Self.endsQueryValue(bytes, at: end) { end += 1 }
                if eq < n, bytes[eq] == UInt8(ascii: "="), eq > nameStart,
                    isSecret(
                        queryParameter: String(decoding: bytes[nameStart..<eq], as: UTF8.self), value: String(decoding: bytes[(eq + 1)..<end], as: UTF8.self))
                {
                    let value = String(decoding: bytes[(eq + 1)..<end], as: UTF8.self)
                    output.append(contentsOf: bytes[i...eq])
                    if !value.isEmpty, value != Self.placeholder {
                        secrets.insert(value)
                        if let decoded = value.removingPercentEncoding { secrets.insert(decoded) }
                        output.append(contentsOf: placeholder)
                        changed = true
                    } else {
                        output.append(contentsOf: bytes[(eq + 1)..<end])
                    }
                    i = end
                    continue
                }
            }
            // A JSON field: "name" : "value".
            if bytes[i] == UInt8(ascii: "\"") {
                var close = i + 1
                while close < n, close - i < 40, bytes[close] != UInt8(ascii: "\""), Self.isNameByte(bytes[close]) { close += 1 }
                if close < n, bytes[close] == UInt8(ascii: "\""), close > i + 1,
                    jsonFields.contains(String(decoding: bytes[(i + 1)..<close], as: UTF8.self).lowercased())
                {
                    var j = close + 1
                    j = Self.skipSpace(bytes, from: j)
                    if j < n, bytes[j] == UInt8(ascii: ":") {
                        j += 1
                        j = Self.skipSpace(bytes, from: j)
                        if j < n, bytes[j] == UInt8(ascii: "\"") {
                            var end = j + 1
                            while end < n, bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
                            end = min(end, n)
                            let value = String(decoding: bytes[(j + 1)..<end], as: UTF8.self)
                            output.append(contentsOf: bytes[i...j])
                            if !value.isEmpty, value != Self.placeholder {
                                secrets.insert(value)
                                output.append(contentsOf: placeholder)
                                changed = true
                            } else {
                                output.append(contentsOf: bytes[(j + 1)..<end])
                            }
                            i = end
                            continue
                        }
                    }
                }
            }
            output.append(bytes[i])
            i += 1
        }
        guard changed else { return text }
        bytes = output
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The first index at or after `from` that is not JSON whitespace.
    static func skipSpace(_ bytes: [UInt8], from: Int) -> Int {
        var j = from
        while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x09 || bytes[j] == 0x0A || bytes[j] == 0x0D { j += 1 }
        return j
    }

    static func isNameByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A) || c == UInt8(ascii: "_") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
    }

    static func endsQueryValue(_ bytes: [UInt8], at i: Int) -> Bool {
        let c = bytes[i]
        if c <= 0x20 || c == UInt8(ascii: "&") || c == UInt8(ascii: "#") || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'")
            || c == UInt8(ascii: "<") || c == UInt8(ascii: ">") || c == UInt8(ascii: ")") || c == UInt8(ascii: ",") || c == UInt8(ascii: ";")
        {
            return true
        }
        return c == UInt8(ascii: "\\")
    }

    static func hasPrefix(_ bytes: [UInt8], at i: Int, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard i + count <= bytes.count else { return false }
        for k in 0..<count where bytes[i + k] != literal.utf8Start[k] { return false }
        return true
    }
}

extension String {
    var trimmedSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
