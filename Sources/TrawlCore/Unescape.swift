/// Decoders for the escapes media URLs hide behind.
public enum Unescape {
    /// Decodes `&amp;`, `&quot;`, `&lt;`, `&gt;`, `&apos;`, `&#NN;` and `&#xNN;`.
    public static func htmlEntities(_ s: String) -> String {
        guard s.utf8.contains(UInt8(ascii: "&")) else { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count)
        var i = s.startIndex
        while i < s.endIndex {
            let c = s[i]
            if c == "&", let semi = s[i...].prefix(12).firstIndex(of: ";") {
                let name = s[s.index(after: i)..<semi]
                if let decoded = decodeEntity(name) {
                    out.append(decoded)
                    i = s.index(after: semi)
                    continue
                }
            }
            out.append(c)
            i = s.index(after: i)
        }
        return out
    }

    static func decodeEntity(_ name: Substring) -> Character? {
        switch name {
        case "amp": return "&"
        case "quot": return "\""
        case "lt": return "<"
        case "gt": return ">"
        case "apos": return "'"
        case "nbsp": return "\u{A0}"
        default:
            guard name.first == "#" else { return nil }
            let digits = name.dropFirst()
            let value: UInt32?
            if digits.first == "x" || digits.first == "X" {
                value = UInt32(digits.dropFirst(), radix: 16)
            } else {
                value = UInt32(digits, radix: 10)
            }
            return value.flatMap(Unicode.Scalar.init).map(Character.init)
        }
    }

    /// Decodes JSON string escapes left in text: `\/`, `\\`, `\"`, `\u` and four hex digits (surrogate pairs too).
    public static func jsonEscapes(_ s: String) -> String {
        guard s.utf8.contains(UInt8(ascii: "\\")) else { return s }
        var scalars = String.UnicodeScalarView()
        var it = Array(s.unicodeScalars)[...]
        while let c = it.popFirst() {
            guard c == "\\", let next = it.first else { scalars.append(c); continue }
            switch next {
            case "/", "\\", "\"", "'":
                scalars.append(next); it.removeFirst()
            case "n": scalars.append("\n"); it.removeFirst()
            case "t": scalars.append("\t"); it.removeFirst()
            case "r": scalars.append("\r"); it.removeFirst()
            case "u":
                let hex = String(String.UnicodeScalarView(it.dropFirst().prefix(4)))
                guard hex.count == 4, let code = UInt32(hex, radix: 16) else { scalars.append(c); continue }
                it.removeFirst(5)
                if (0xD800..<0xDC00).contains(code), it.count >= 6, it.first == "\\",
                    it.dropFirst().first == "u",
                    let low = UInt32(String(String.UnicodeScalarView(it.dropFirst(2).prefix(4))), radix: 16),
                    (0xDC00..<0xE000).contains(low)
                {
                    it.removeFirst(6)
                    let combined = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    if let scalar = Unicode.Scalar(combined) { scalars.append(scalar) }
                } else if let scalar = Unicode.Scalar(code) {
                    scalars.append(scalar)
                }
            default:
                scalars.append(c)
            }
        }
        return String(scalars)
    }
}
