/// Cuts a JSON object out of text that is not JSON (a script calling a function with an
/// object literal): from the first `{` after a marker to the brace that closes it, skipping
/// strings. Linear in the text.
enum JSONCut {
    static func object(after marker: String, in text: [UInt8]) -> [UInt8]? {
        let needle = Array(marker.utf8)
        guard !needle.isEmpty, text.count >= needle.count else { return nil }
        var i = 0
        outer: while i + needle.count <= text.count {
            for k in 0..<needle.count where text[i + k] != needle[k] {
                i += 1
                continue outer
            }
            var j = i + needle.count
            while j < text.count, text[j] == 0x20 || text[j] == 0x0A || text[j] == 0x09 || text[j] == 0x0D { j += 1 }
            guard j < text.count, text[j] == UInt8(ascii: "{") else { i += 1; continue }
            if let end = balancedEnd(text, from: j) { return Array(text[j..<end]) }
            return nil
        }
        return nil
    }

    static func balancedEnd(_ s: [UInt8], from start: Int) -> Int? {
        var depth = 0
        var i = start
        while i < s.count {
            switch s[i] {
            case UInt8(ascii: "\""):
                i += 1
                while i < s.count, s[i] != UInt8(ascii: "\"") { i += s[i] == UInt8(ascii: "\\") ? 2 : 1 }
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
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
