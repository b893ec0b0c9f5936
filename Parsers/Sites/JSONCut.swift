import TrawlCore

/// Cuts a JSON object out of text that is not JSON (a script calling a function with an
/// object literal): from the first `{` after a marker to the brace that closes it, skipping
/// strings (``JavaScriptText/balancedEnd(_:from:)``). Linear in the text.
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
            return text.withUnsafeBufferPointer { bytes in
                JavaScriptText.balancedEnd(bytes, from: j).map { Array(bytes[j..<$0]) }
            }
        }
        return nil
    }
}
