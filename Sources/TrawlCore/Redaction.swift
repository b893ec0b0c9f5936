import Foundation

/// Keeps secrets out of messages and recordings.
///
/// A query parameter's value is a secret when its name says so, by pattern rather than by list
/// (``isSecretName(_:)``: `api_key`, `X-Amz-Signature`, `refresh_token`, `sig`…), or when the
/// value looks like a credential whatever it is called (``looksLikeCredential(_:)``: `Bearer …`,
/// a JSON Web Token).
public enum Redaction {
    /// The value that stands in for a secret.
    public static let placeholder = "REDACTED"

    /// `url` with the values of secret query parameters (``isSecret(name:value:)``, or named in
    /// `extraParameters`, lower-cased) and any user:password replaced.
    public static func url(_ url: String, extraParameters: Set<String> = []) -> String {
        var result = url
        if let schemeEnd = result.range(of: "://"),
            let at = result[schemeEnd.upperBound...].prefix(while: { $0 != "/" && $0 != "?" }).firstIndex(of: "@")
        {
            result.replaceSubrange(schemeEnd.upperBound..<at, with: placeholder)
        }
        guard let q = result.firstIndex(of: "?") else { return result }
        let head = result[...q]
        var rest = Substring(result[result.index(after: q)...])
        var fragment = ""
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[hash...])
            rest = rest[..<hash]
        }
        let pairs = rest.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let eq = pair.firstIndex(of: "=") else { return String(pair) }
            let name = pair[..<eq]
            let value = pair[pair.index(after: eq)...]
            let secret = extraParameters.contains(name.lowercased()) || isSecret(name: name, value: value.removingPercentEncoding ?? String(value))
            return secret && !value.isEmpty ? "\(name)=\(placeholder)" : String(pair)
        }
        return head + pairs.joined(separator: "&") + fragment
    }
}

extension Redaction {
    /// `text` with the secret in every URL it holds replaced: values of secret query
    /// parameters (`?api_key=…`, `&X-Amz-Signature=…`: ``isSecret(name:value:)``, or named in
    /// `extraParameters`, lower-cased), `user:password@` in a URL's authority, and the token of
    /// a `Bearer …` credential. Every error's `description` goes through this, so a message that
    /// quotes a URL, a request line or a library's own words never shows a key.
    public static func text(_ text: String, extraParameters: Set<String> = []) -> String {
        guard text.contains("=") || text.contains("@") || text.range(of: "bearer", options: .caseInsensitive) != nil else { return text }
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            // `?name=` or `&name=` (also `&amp;name=`): replace the value up to its delimiter.
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "&") || byte == UInt8(ascii: ";") {
                output.append(byte)
                i += 1
                var nameEnd = i
                while nameEnd < bytes.count, isNameByte(bytes[nameEnd]) { nameEnd += 1 }
                guard nameEnd < bytes.count, bytes[nameEnd] == UInt8(ascii: "="), nameEnd > i else { continue }
                var valueEnd = nameEnd + 1
                while valueEnd < bytes.count, !isValueDelimiter(bytes[valueEnd]) { valueEnd += 1 }
                // A colon or full stop that ends the value before a blank (or the end) is the
                // sentence's (`trawl: URL?key=K: HTTP 404`), not the value's.
                while valueEnd > nameEnd + 1, bytes[valueEnd - 1] == UInt8(ascii: ":") || bytes[valueEnd - 1] == UInt8(ascii: "."),
                    valueEnd == bytes.count || bytes[valueEnd] == UInt8(ascii: " ") || bytes[valueEnd] == UInt8(ascii: "\n")
                        || bytes[valueEnd] == UInt8(ascii: "\t")
                {
                    valueEnd -= 1
                }
                let name = String(decoding: bytes[i..<nameEnd], as: UTF8.self)
                let value = String(decoding: bytes[(nameEnd + 1)..<valueEnd], as: UTF8.self)
                if valueEnd > nameEnd + 1, value != placeholder,
                    extraParameters.contains(name.lowercased()) || isSecret(name: name, value: value.removingPercentEncoding ?? value)
                {
                    output += bytes[i...nameEnd]
                    output += Array(placeholder.utf8)
                    i = valueEnd
                }
                continue
            }
            // `://user:password@host`: the credentials go.
            if byte == UInt8(ascii: ":"), i + 2 < bytes.count, bytes[i + 1] == UInt8(ascii: "/"), bytes[i + 2] == UInt8(ascii: "/") {
                output += bytes[i...(i + 2)]
                i += 3
                var end = i
                while end < bytes.count, !isValueDelimiter(bytes[end]), bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"),
                    bytes[end] != UInt8(ascii: "@")
                { end += 1 }
                if end < bytes.count, bytes[end] == UInt8(ascii: "@"), end > i,
                    !userinfoPlaceholders.contains(String(decoding: bytes[i..<end], as: UTF8.self))
                {
                    output += Array(placeholder.utf8)
                    i = end
                }
                continue
            }
            // `Bearer TOKEN` (an `Authorization` header quoted in a message): the token goes.
            if byte | 0x20 == UInt8(ascii: "b"), i + 7 < bytes.count, (i == 0 || !isNameByte(bytes[i - 1])),
                String(decoding: bytes[i..<(i + 7)], as: UTF8.self).lowercased() == "bearer ", isTokenByte(bytes[i + 7])
            {
                var end = i + 7
                while end < bytes.count,
                    isTokenByte(bytes[end]) || bytes[end] == UInt8(ascii: ".") || bytes[end] == UInt8(ascii: "~")
                        || bytes[end] == UInt8(ascii: "+") || bytes[end] == UInt8(ascii: "/") || bytes[end] == UInt8(ascii: "=")
                { end += 1 }
                // A full stop that ends the sentence is the sentence's.
                while end > i + 7, bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
                // Eight characters at least: "bearer of bad news" is words, not a credential.
                if end - (i + 7) >= 8 {
                    output += bytes[i..<(i + 7)]
                    output += Array(placeholder.utf8)
                    i = end
                    continue
                }
            }
            output.append(byte)
            i += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The credentials usage hints write (`postgres://USER@HOST/DATABASE`): no secret, and
    /// the hint means nothing with them redacted.
    static let userinfoPlaceholders: Set<String> = ["USER", "USER:PASSWORD", "USER[:PASSWORD]", "USERNAME", "USERNAME:PASSWORD"]

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    /// Where a query value ends in running text.
    private static func isValueDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: "#"), UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\""),
            UInt8(ascii: "'"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: ")"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "\\"):
            true
        default: false
        }
    }
}
