import Foundation

/// What a statically fetched page says about needing a browser: its media, its scripts, and the
/// marks single-page apps leave (an empty `<div id="root">`, a framework's attributes).
public struct StaticPageEvidence: Sendable, Hashable {
    /// Media the static result found (from any parser).
    public var mediaCount: Int
    public var scriptCount: Int
    public var hasNoscript: Bool
    /// An app root (`<div id="root|app|__next|__nuxt|___gatsby">`) with nothing in it.
    public var hasEmptyAppRoot: Bool
    /// Frameworks whose marks the page carries (`next`, `nuxt`, `react`, `vue`, `angular`,
    /// `svelte`, `gatsby`).
    public var frameworkMarkers: Set<String>
    /// Bytes of text outside tags, scripts and styles.
    public var visibleTextBytes: Int

    public init(
        mediaCount: Int, scriptCount: Int = 0, hasNoscript: Bool = false, hasEmptyAppRoot: Bool = false,
        frameworkMarkers: Set<String> = [], visibleTextBytes: Int = 0
    ) {
        self.mediaCount = mediaCount
        self.scriptCount = scriptCount
        self.hasNoscript = hasNoscript
        self.hasEmptyAppRoot = hasEmptyAppRoot
        self.frameworkMarkers = frameworkMarkers
        self.visibleTextBytes = visibleTextBytes
    }

    /// Reads the evidence out of an HTML document in one pass over its bytes (ASCII,
    /// case-insensitive); `mediaCount` is what the static parsers found.
    public init(html: Data, mediaCount: Int) {
        self.init(mediaCount: mediaCount)
        let bytes = [UInt8](html.prefix(4 << 20)).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        scriptCount = Self.count("<script", in: bytes)
        hasNoscript = Self.count("<noscript", in: bytes) > 0
        for root in ["root", "app", "__next", "__nuxt", "___gatsby"] {
            for quote in ["\"", "'"] where Self.hasEmptyElement(opening: "id=\(quote)\(root)\(quote)", in: bytes) {
                hasEmptyAppRoot = true
            }
        }
        let markers: [(String, String)] = [
            ("__next_data__", "next"), ("/_next/static/", "next"), ("window.__nuxt__", "nuxt"), ("id=\"__nuxt\"", "nuxt"),
            ("data-reactroot", "react"), ("react-dom", "react"), ("ng-version=", "angular"), ("data-v-app", "vue"),
            ("data-server-rendered", "vue"), ("id=\"___gatsby\"", "gatsby"), ("data-svelte", "svelte"), ("__sveltekit", "svelte"),
        ]
        for (needle, framework) in markers where Self.count(needle, in: bytes, limit: 1) > 0 { frameworkMarkers.insert(framework) }
        visibleTextBytes = Self.visibleText(bytes)
    }

    private static func count(_ needle: String, in bytes: [UInt8], limit: Int = .max) -> Int {
        let pattern = Array(needle.utf8)
        var found = 0
        var i = 0
        while found < limit, let at = offset(of: pattern, in: bytes, from: i) {
            found += 1
            i = at + pattern.count
        }
        return found
    }

    /// An element whose start tag holds `opening` and whose content is only whitespace.
    private static func hasEmptyElement(opening: String, in bytes: [UInt8]) -> Bool {
        let pattern = Array(opening.utf8)
        var i = 0
        while let at = offset(of: pattern, in: bytes, from: i) {
            i = at + 1
            var j = (offset(of: [UInt8(ascii: ">")], in: bytes, from: at + pattern.count) ?? bytes.count) + 1
            while j < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[j]) { j += 1 }
            if j + 1 < bytes.count, bytes[j] == UInt8(ascii: "<"), bytes[j + 1] == UInt8(ascii: "/") { return true }
        }
        return false
    }

    /// Text bytes outside tags, `<script>`, `<style>` and comments, whitespace not counted.
    private static func visibleText(_ bytes: [UInt8]) -> Int {
        let script = Array("</script".utf8)
        let style = Array("</style".utf8)
        let scriptOpen = Array("<script".utf8)
        let styleOpen = Array("<style".utf8)
        let commentOpen = Array("<!--".utf8)
        let commentClose = Array("-->".utf8)
        var total = 0
        var i = 0
        while i < bytes.count {
            let tag = offset(of: [UInt8(ascii: "<")], in: bytes, from: i) ?? bytes.count
            for k in i..<tag where bytes[k] > 0x20 { total += 1 }
            guard tag < bytes.count else { break }
            let rest = bytes[tag...]
            if rest.starts(with: commentOpen) {
                i = (offset(of: commentClose, in: bytes, from: tag + 4) ?? bytes.count) + 3
                continue
            }
            let closing: [UInt8]? = rest.starts(with: scriptOpen) ? script : rest.starts(with: styleOpen) ? style : nil
            i = (offset(of: [UInt8(ascii: ">")], in: bytes, from: tag) ?? bytes.count) + 1
            // A script's or style's text is skipped up to its end tag (itself read as a tag next).
            if let closing { i = offset(of: closing, in: bytes, from: i) ?? bytes.count }
        }
        return total
    }

    /// Where `pattern` next occurs in `bytes` at or after `start`. `memchr` looks for the
    /// pattern's rarest byte in markup (`_` before `-` before `=` … before common letters), and
    /// `memcmp` checks the rest around it: anchored on its first letter, a pattern like
    /// `data-reactroot` stopped at every `d` of the page, and a profile of `--browser auto` on
    /// the corpus found a third of trawl's CPU here.
    private static func offset(of pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !pattern.isEmpty, start >= 0, bytes.count - start >= pattern.count else { return nil }
        let anchor = pattern.indices.min { rarity(pattern[$0]) < rarity(pattern[$1]) } ?? 0
        return bytes.withUnsafeBufferPointer { haystack -> Int? in
            pattern.withUnsafeBufferPointer { needle -> Int? in
                guard let base = haystack.baseAddress, let needleBase = needle.baseAddress else { return nil }
                let last = haystack.count - needle.count  // the last position the pattern can start at
                var i = start
                while i <= last {
                    guard let hit = memchr(base + i + anchor, Int32(needle[anchor]), last - i + 1) else { return nil }
                    let at = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit)) - anchor
                    if memcmp(base + at, needleBase, needle.count) == 0 { return at }
                    i = at + 1
                }
                return nil
            }
        }
    }

    /// How common a byte is in (lowercased) markup: 0 for bytes not listed (rare), then from the
    /// rarest listed to the most common.
    private static func rarity(_ byte: UInt8) -> Int {
        commonness[Int(byte)]
    }

    private static let commonness: [Int] = {
        var table = [Int](repeating: 0, count: 256)
        let rarestFirst = Array("_-=/.<>0123456789zqjxkvbywgpfmucdlhrsnioate\"' ".utf8)
        for (rank, byte) in rarestFirst.enumerated() { table[Int(byte)] = rank + 1 }
        return table
    }()
}
