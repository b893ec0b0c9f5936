/// Finding ASCII words in strings as a byte search.
///
/// `String.firstRange(of:)` and `contains(_:)` on a `String` go through the generic searcher
/// of `_StringProcessing`, which looks up generic metadata on every call; on the hot paths
/// (every URL a parser checks, every media result merged) that cost more than the rest of the
/// check. These read the UTF-8 bytes directly; an ASCII word can only match whole characters.
extension String {
    /// The first occurrence of the ASCII `word`, compared exactly.
    public func firstRange(ofASCII word: StaticString) -> Range<String.Index>? {
        guard let offset = utf8Offset(of: word, ignoringCase: false) else { return nil }
        let start = utf8.index(utf8.startIndex, offsetBy: offset)
        return start..<utf8.index(start, offsetBy: word.utf8CodeUnitCount)
    }

    /// Whether the ASCII `word` occurs, ignoring ASCII case (`word` itself in lower case).
    public func containsASCII(_ word: StaticString, ignoringCase: Bool = false) -> Bool {
        utf8Offset(of: word, ignoringCase: ignoringCase) != nil
    }

    private func utf8Offset(of word: StaticString, ignoringCase: Bool) -> Int? {
        let needle = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        if let found = utf8.withContiguousStorageIfAvailable({ Self.offset(of: needle, in: $0, ignoringCase: ignoringCase) }) {
            return found
        }
        return Array(utf8).withUnsafeBufferPointer { Self.offset(of: needle, in: $0, ignoringCase: ignoringCase) }
    }

    private static func offset(of needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>, ignoringCase: Bool) -> Int? {
        let count = needle.count
        guard count > 0 else { return 0 }
        guard haystack.count >= count else { return nil }
        func folded(_ c: UInt8) -> UInt8 { ignoringCase && (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A ? c | 0x20 : c }
        let first = folded(needle[0])
        var i = 0
        let last = haystack.count - count
        while i <= last {
            if folded(haystack[i]) == first {
                var k = 1
                while k < count, folded(haystack[i + k]) == folded(needle[k]) { k += 1 }
                if k == count { return i }
            }
            i += 1
        }
        return nil
    }
}
