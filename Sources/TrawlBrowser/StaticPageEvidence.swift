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
        guard let first = pattern.first, bytes.count >= pattern.count else { return 0 }
        var found = 0
        var i = 0
        let last = bytes.count - pattern.count
        while i <= last, found < limit {
            if bytes[i] == first, bytes[i..<(i + pattern.count)].elementsEqual(pattern) {
                found += 1
                i += pattern.count
            } else {
                i += 1
            }
        }
        return found
    }

    /// An element whose start tag holds `opening` and whose content is only whitespace.
    private static func hasEmptyElement(opening: String, in bytes: [UInt8]) -> Bool {
        let pattern = Array(opening.utf8)
        guard bytes.count > pattern.count else { return false }
        var i = 0
        while i <= bytes.count - pattern.count {
            defer { i += 1 }
            guard bytes[i..<(i + pattern.count)].elementsEqual(pattern) else { continue }
            var j = i + pattern.count
            while j < bytes.count, bytes[j] != UInt8(ascii: ">") { j += 1 }
            j += 1
            while j < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[j]) { j += 1 }
            if j + 1 < bytes.count, bytes[j] == UInt8(ascii: "<"), bytes[j + 1] == UInt8(ascii: "/") { return true }
        }
        return false
    }

    /// Text bytes outside tags, `<script>`, `<style>` and comments, whitespace not counted.
    private static func visibleText(_ bytes: [UInt8]) -> Int {
        var total = 0
        var i = 0
        let script = Array("</script".utf8)
        let style = Array("</style".utf8)
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "<") {
                let rest = bytes[i...]
                let closing: [UInt8]? = rest.starts(with: Array("<script".utf8)) ? script : rest.starts(with: Array("<style".utf8)) ? style : nil
                if rest.starts(with: Array("<!--".utf8)) {
                    i += 4
                    while i + 2 < bytes.count, !(bytes[i] == UInt8(ascii: "-") && bytes[i + 1] == UInt8(ascii: "-") && bytes[i + 2] == UInt8(ascii: ">")) { i += 1 }
                    i += 3
                    continue
                }
                while i < bytes.count, bytes[i] != UInt8(ascii: ">") { i += 1 }
                i += 1
                if let closing {
                    while i < bytes.count, !(bytes[i] == UInt8(ascii: "<") && bytes[i...].starts(with: closing)) { i += 1 }
                }
                continue
            }
            if byte > 0x20 { total += 1 }
            i += 1
        }
        return total
    }
}
