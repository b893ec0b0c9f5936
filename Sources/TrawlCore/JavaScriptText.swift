/// Reading JavaScript source as bytes: what the scanner's JSON extraction and the site parsers
/// (which cut objects out of function calls) both need.
public enum JavaScriptText {
    /// Index just past the closing quote of the string starting at `start` (or the end).
    public static func skipString(_ s: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let quote = s[start]
        var i = start + 1
        while i < s.count {
            let c = s[i]
            if c == UInt8(ascii: "\\") { i += 2; continue }
            if c == quote { return i + 1 }
            // An unterminated ' or " string ends at the line (JavaScript forbids raw newlines).
            if c == 0x0A && quote != UInt8(ascii: "`") { return i }
            i += 1
        }
        return s.count
    }

    /// Index just past the bracket that closes the one at `start`, or nil if it never closes.
    public static func balancedEnd(_ s: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var depth = 0
        var i = start
        while i < s.count {
            let c = s[i]
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "`"):
                i = skipString(s, from: i)
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return i + 1 }
            default: break
            }
            i += 1
        }
        return nil
    }
}
