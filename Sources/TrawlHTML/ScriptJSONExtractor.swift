import TrawlCore

/// Cuts JSON out of JavaScript: `window.X = {…}`, `var x = […]` and `X = JSON.parse("…")`.
///
/// One left-to-right pass that skips string literals and comments; each candidate is cut by a
/// string-aware balanced-bracket scan, and the pass resumes after it, so the whole script is
/// read about once. Only candidates that are valid JSON are kept: an object literal with
/// unquoted keys or functions is JavaScript, not a payload.
enum ScriptJSONExtractor {
    struct Found: Equatable {
        var kind: EmbeddedLocator.Kind
        /// The assigned name (`window.__INITIAL_STATE__`).
        var name: String?
        var json: [UInt8]
    }

    /// Smallest candidate worth keeping (`{}` and `[]` carry nothing).
    static let minimumLength = 8

    static func extract(from script: UnsafeBufferPointer<UInt8>) -> [Found] {
        var found: [Found] = []
        let n = script.count
        var i = 0
        while i < n {
            let c = script[i]
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "`"):
                i = skipString(script, from: i)
            case UInt8(ascii: "/") where i + 1 < n && script[i + 1] == UInt8(ascii: "/"):
                while i < n && script[i] != 0x0A { i += 1 }
            case UInt8(ascii: "/") where i + 1 < n && script[i + 1] == UInt8(ascii: "*"):
                i += 2
                while i + 1 < n && !(script[i] == UInt8(ascii: "*") && script[i + 1] == UInt8(ascii: "/")) { i += 1 }
                i += 2
            case UInt8(ascii: "=") where isAssignment(script, at: i):
                var j = i + 1
                while j < n && isSpace(script[j]) { j += 1 }
                guard j < n else { return found }
                if script[j] == UInt8(ascii: "{") || script[j] == UInt8(ascii: "[") {
                    // A JSON value ends where its brackets balance; anything else (an object
                    // literal with unquoted keys, a function) is skipped by its brackets.
                    if let end = JSONSyntax.valueEnd(script, from: j) {
                        if end - j >= minimumLength {
                            found.append(Found(kind: .assignment, name: name(before: i, in: script), json: Array(script[j..<end])))
                        }
                        i = end
                    } else {
                        guard let end = balancedEnd(script, from: j) else { return found }
                        i = end
                    }
                } else if let (json, end) = jsonParseCall(script, at: j) {
                    let candidate = json.withUnsafeBufferPointer { JSONSyntax.isValid($0) }
                    if json.count >= minimumLength, candidate {
                        found.append(Found(kind: .jsonParse, name: name(before: i, in: script), json: json))
                    }
                    i = end
                } else {
                    i = j
                }
            default:
                i += 1
            }
        }
        return found
    }

    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

    /// `=` alone: not `==`, `=>`, `<=`, `!=`, `+=` and friends.
    static func isAssignment(_ s: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        if i + 1 < s.count, s[i + 1] == UInt8(ascii: "=") || s[i + 1] == UInt8(ascii: ">") { return false }
        if i > 0 {
            switch s[i - 1] {
            case UInt8(ascii: "="), UInt8(ascii: "!"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "+"),
                UInt8(ascii: "-"), UInt8(ascii: "*"), UInt8(ascii: "/"), UInt8(ascii: "%"), UInt8(ascii: "&"),
                UInt8(ascii: "|"), UInt8(ascii: "^"), UInt8(ascii: "?"):
                return false
            default: break
            }
        }
        return true
    }

    static func skipString(_ s: UnsafeBufferPointer<UInt8>, from start: Int) -> Int { JavaScriptText.skipString(s, from: start) }

    static func balancedEnd(_ s: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? { JavaScriptText.balancedEnd(s, from: start) }

    /// `JSON.parse("…")` or `JSON.parse('…')` at `start`: the decoded string and the index after `)`.
    static func jsonParseCall(_ s: UnsafeBufferPointer<UInt8>, at start: Int) -> ([UInt8], Int)? {
        let prefix = Array("JSON.parse(".utf8)
        guard start + prefix.count < s.count else { return nil }
        for k in 0..<prefix.count where s[start + k] != prefix[k] { return nil }
        var i = start + prefix.count
        while i < s.count && isSpace(s[i]) { i += 1 }
        guard i < s.count, s[i] == UInt8(ascii: "\"") || s[i] == UInt8(ascii: "'") else { return nil }
        let end = skipString(s, from: i)
        guard end > i + 1, end <= s.count else { return nil }
        let literal = UnsafeBufferPointer(rebasing: s[(i + 1)..<(end - 1)])
        var close = end
        while close < s.count && isSpace(s[close]) { close += 1 }
        return (unescapeJavaScriptString(literal), min(close + 1, s.count))
    }

    /// Decodes a JavaScript string literal's escapes into UTF-8.
    static func unescapeJavaScriptString(_ s: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(s.count)
        var i = 0
        var pendingHigh: UInt32?
        func appendScalar(_ value: UInt32) {
            guard let scalar = Unicode.Scalar(value) else { return }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
        }
        while i < s.count {
            let c = s[i]
            guard c == UInt8(ascii: "\\"), i + 1 < s.count else { out.append(c); i += 1; continue }
            let e = s[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "0"): out.append(0)
            case UInt8(ascii: "x") where i + 2 <= s.count:
                if let v = UInt32(String(decoding: UnsafeBufferPointer(rebasing: s[i..<(i + 2)]), as: UTF8.self), radix: 16) {
                    appendScalar(v)
                }
                i += 2
            case UInt8(ascii: "u") where i + 4 <= s.count:
                guard let v = UInt32(String(decoding: UnsafeBufferPointer(rebasing: s[i..<(i + 4)]), as: UTF8.self), radix: 16) else { break }
                i += 4
                if (0xD800..<0xDC00).contains(v) {
                    pendingHigh = v
                } else if (0xDC00..<0xE000).contains(v), let high = pendingHigh {
                    appendScalar(0x10000 + ((high - 0xD800) << 10) + (v - 0xDC00))
                    pendingHigh = nil
                } else {
                    appendScalar(v)
                }
            default:
                // \" \' \\ \/ and any other escaped character stand for themselves.
                out.append(e)
            }
        }
        return out
    }

    /// The assignment target before `=` at `index`: `window.X`, `var x` → `x`, `a["b"]`.
    static func name(before index: Int, in s: UnsafeBufferPointer<UInt8>) -> String? {
        var end = index
        while end > 0 && isSpace(s[end - 1]) { end -= 1 }
        var start = end
        while start > 0 {
            let c = s[start - 1]
            let isName =
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                || c == UInt8(ascii: "_") || c == UInt8(ascii: "$") || c == UInt8(ascii: ".") || c == UInt8(ascii: "[")
                || c == UInt8(ascii: "]") || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'")
            guard isName, end - start < 128 else { break }
            start -= 1
        }
        guard start < end else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: s[start..<end]), as: UTF8.self)
    }
}
