import Foundation

/// The one pass behind ``StaticPageEvidence/init(html:mediaCount:)``: `memchr` from one `<` to
/// the next, text bytes counted between them, each start tag's name and attributes read once,
/// script and style bodies skipped to their end tag (a script's searched only for the few
/// framework marks that live in code).
///
/// It replaced two dozen passes over a lowercased copy of the page (one per pattern): with
/// 85% of corpus pages media-less, that check ran on most pages and cost `--browser auto` a
/// quarter of its static speed.
struct EvidenceReader {
    /// The page's bytes, borrowed for the reader's life inside `withUnsafeBytes`; never kept.
    private let bytes: UnsafeRawBufferPointer
    private(set) var evidence: StaticPageEvidence

    init(bytes: UnsafeRawBufferPointer, mediaCount: Int) {
        self.bytes = bytes
        self.evidence = StaticPageEvidence(mediaCount: mediaCount)
    }

    mutating func read() {
        let end = bytes.count
        var i = 0
        while i < end {
            let tag = find(Byte.lessThan, from: i) ?? end
            countText(i..<tag)
            guard tag + 1 < end else { break }
            let next = bytes[tag + 1]
            if Self.isLetter(next) {
                i = startTag(at: tag)
            } else if next == Byte.bang, hasPrefix("!--", at: tag + 1) {
                i = find("-->", from: tag + 4).map { $0 + 3 } ?? end
            } else if next == Byte.slash || next == Byte.bang || next == Byte.question {
                i = (find(Byte.greaterThan, from: tag + 1) ?? end) + 1
            } else {
                // A bare `<` in text ("a < b").
                countText(tag..<tag + 1)
                i = tag + 1
            }
        }
    }

    // MARK: Tags

    private enum Kind { case script, style, noscript, other }

    /// Reads the start tag at `open` (its `<`); returns where reading goes on: after the tag,
    /// or for a script or style at its end tag.
    private mutating func startTag(at open: Int) -> Int {
        let end = bytes.count
        var j = open + 1
        while j < end, !Self.endsName(bytes[j]) { j += 1 }
        let kind = kind(of: open + 1..<j)
        let close = find(Byte.greaterThan, from: j) ?? end
        let attributes = readAttributes(j..<close)
        switch kind {
        case .script: evidence.scriptCount += 1
        case .noscript: evidence.hasNoscript = true
        case .style, .other: break
        }
        let content = min(close + 1, end)
        if attributes.isAppRoot, isEmptyElement(contentFrom: content) { evidence.hasEmptyAppRoot = true }
        switch kind {
        case .script:
            let endTag = findEndTag("script", from: content) ?? end
            findCodeMarkers(in: content..<endTag)
            return endTag
        case .style:
            return findEndTag("style", from: content) ?? end
        case .noscript, .other:
            return content
        }
    }

    private func kind(of name: Range<Int>) -> Kind {
        if equalsFolded(name, "script") { return .script }
        if equalsFolded(name, "style") { return .style }
        if equalsFolded(name, "noscript") { return .noscript }
        return .other
    }

    /// Whether an element's content, from `start`, is only whitespace up to an end tag.
    private func isEmptyElement(contentFrom start: Int) -> Bool {
        var j = start
        while j < bytes.count, Self.isSpace(bytes[j]) { j += 1 }
        return j + 1 < bytes.count && bytes[j] == Byte.lessThan && bytes[j + 1] == Byte.slash
    }

    // MARK: Attributes

    private struct Attributes { var isAppRoot = false }

    /// Walks a start tag's attributes once: an app root's `id`, frameworks' attributes and the
    /// bundles a script or link loads.
    private mutating func readAttributes(_ range: Range<Int>) -> Attributes {
        var found = Attributes()
        var j = range.lowerBound
        let end = range.upperBound
        while j < end {
            while j < end, Self.isSpace(bytes[j]) || bytes[j] == Byte.slash { j += 1 }
            let nameStart = j
            while j < end, !Self.isSpace(bytes[j]), bytes[j] != Byte.equals, bytes[j] != Byte.slash { j += 1 }
            let name = nameStart..<j
            guard !name.isEmpty else { break }
            var k = j
            while k < end, Self.isSpace(bytes[k]) { k += 1 }
            var value = k..<k
            if k < end, bytes[k] == Byte.equals {
                k += 1
                while k < end, Self.isSpace(bytes[k]) { k += 1 }
                if k < end, bytes[k] == Byte.doubleQuote || bytes[k] == Byte.singleQuote {
                    let quote = bytes[k]
                    let close = find(quote, from: k + 1, before: end) ?? end
                    value = k + 1..<close
                    k = min(close + 1, end)
                } else {
                    let start = k
                    while k < end, !Self.isSpace(bytes[k]) { k += 1 }
                    value = start..<k
                }
                j = k
            }
            attribute(name, value, into: &found)
        }
        return found
    }

    private mutating func attribute(_ name: Range<Int>, _ value: Range<Int>, into found: inout Attributes) {
        if equalsFolded(name, "id") {
            if Self.appRoots.contains(where: { equalsFolded(value, $0) }) { found.isAppRoot = true }
            if equalsFolded(value, "__next_data__") { evidence.frameworkMarkers.insert("next") }
            if equalsFolded(value, "__nuxt") { evidence.frameworkMarkers.insert("nuxt") }
            if equalsFolded(value, "___gatsby") { evidence.frameworkMarkers.insert("gatsby") }
        } else if equalsFolded(name, "src") || equalsFolded(name, "href") {
            for marker in Self.bundleMarkers where contains(marker.needle, in: value) { evidence.frameworkMarkers.insert(marker.framework) }
        } else if let framework = Self.attributeMarkers.first(where: { hasFoldedPrefix(name, $0.name) })?.framework {
            evidence.frameworkMarkers.insert(framework)
        }
    }

    /// Marks a framework leaves in a script's code.
    private mutating func findCodeMarkers(in range: Range<Int>) {
        for marker in Self.codeMarkers where !evidence.frameworkMarkers.contains(marker.framework) {
            if contains(marker.needle, in: range) { evidence.frameworkMarkers.insert(marker.framework) }
        }
    }

    private static let appRoots: [StaticString] = ["root", "app", "__next", "__nuxt", "___gatsby"]
    /// An attribute whose name starts so (`data-svelte-h` too).
    private static let attributeMarkers: [(name: StaticString, framework: String)] = [
        ("data-reactroot", "react"), ("ng-version", "angular"), ("data-v-app", "vue"),
        ("data-server-rendered", "vue"), ("data-svelte", "svelte"),
    ]
    /// In a script's `src` or a link's `href`.
    private static let bundleMarkers: [(needle: StaticString, framework: String)] = [
        ("/_next/static/", "next"), ("react-dom", "react"),
    ]
    private static let codeMarkers: [(needle: StaticString, framework: String)] = [
        ("/_next/static/", "next"), ("window.__nuxt__", "nuxt"), ("react-dom", "react"), ("__sveltekit", "svelte"),
    ]

    // MARK: Bytes

    private mutating func countText(_ range: Range<Int>) {
        var count = 0
        for i in range where bytes[i] > 0x20 { count += 1 }
        evidence.visibleTextBytes += count
    }

    private func find(_ byte: UInt8, from start: Int, before limit: Int? = nil) -> Int? {
        let end = limit ?? bytes.count
        guard start < end, let base = bytes.baseAddress else { return nil }
        guard let hit = memchr(base + start, Int32(byte), end - start) else { return nil }
        return base.distance(to: UnsafeRawPointer(hit))
    }

    /// Where the exact ASCII `pattern` next starts, at or after `start`.
    private func find(_ pattern: StaticString, from start: Int) -> Int? {
        let first = pattern.utf8Start.pointee
        var i = start
        while let at = find(first, from: i) {
            if hasPrefix(pattern, at: at) { return at }
            i = at + 1
        }
        return nil
    }

    /// Where `</name` next starts (any case), at or after `start`.
    private func findEndTag(_ name: StaticString, from start: Int) -> Int? {
        var i = start
        while let at = find(Byte.lessThan, from: i) {
            if at + 1 < bytes.count, bytes[at + 1] == Byte.slash, hasFoldedPrefix(at + 2..<bytes.count, name) { return at }
            i = at + 1
        }
        return nil
    }

    /// Whether `needle` (lower case) occurs in `range`, any case: `memchr` on its rarest byte
    /// in code (its first `_`, else its first byte that is not a letter: case folding leaves
    /// both alone), the rest compared around each hit.
    private func contains(_ needle: StaticString, in range: Range<Int>) -> Bool {
        let count = needle.utf8CodeUnitCount
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: count)
        let anchor = pattern.firstIndex(of: UInt8(ascii: "_")) ?? pattern.firstIndex { !Self.isLetter($0) } ?? 0
        var i = range.lowerBound + anchor
        while let at = find(pattern[anchor], from: i, before: range.upperBound) {
            let start = at - anchor
            if start + count <= range.upperBound, hasFoldedPrefix(start..<range.upperBound, needle) { return true }
            i = at + 1
        }
        return false
    }

    private func hasPrefix(_ pattern: StaticString, at start: Int) -> Bool {
        let count = pattern.utf8CodeUnitCount
        guard start + count <= bytes.count, let base = bytes.baseAddress else { return false }
        return memcmp(base + start, pattern.utf8Start, count) == 0
    }

    /// Whether the bytes of `range` start with `pattern` (lower case), ignoring ASCII case.
    private func hasFoldedPrefix(_ range: Range<Int>, _ pattern: StaticString) -> Bool {
        let count = pattern.utf8CodeUnitCount
        guard range.count >= count else { return false }
        let needle = pattern.utf8Start
        for k in 0..<count where Self.folded(bytes[range.lowerBound + k]) != needle[k] { return false }
        return true
    }

    private func equalsFolded(_ range: Range<Int>, _ word: StaticString) -> Bool {
        range.count == word.utf8CodeUnitCount && hasFoldedPrefix(range, word)
    }

    private static func folded(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == 0x0C
    }

    /// Whether `byte` ends a tag's name.
    private static func endsName(_ byte: UInt8) -> Bool {
        isSpace(byte) || byte == Byte.greaterThan || byte == Byte.slash
    }

    private enum Byte {
        static let lessThan = UInt8(ascii: "<")
        static let greaterThan = UInt8(ascii: ">")
        static let slash = UInt8(ascii: "/")
        static let bang = UInt8(ascii: "!")
        static let question = UInt8(ascii: "?")
        static let equals = UInt8(ascii: "=")
        static let doubleQuote = UInt8(ascii: "\"")
        static let singleQuote = UInt8(ascii: "'")
    }
}
