package import Foundation

/// What a statically fetched page says about needing a browser: its media, its scripts, and the
/// marks single-page apps leave (an empty `<div id="root">`, a framework's attributes).
package struct StaticPageEvidence: Sendable, Hashable {
    /// Media the static result found (from any parser).
    package var mediaCount: Int
    package var scriptCount: Int
    package var hasNoscript: Bool
    /// An app root (`<div id="root|app|__next|__nuxt|___gatsby">`) with nothing in it.
    package var hasEmptyAppRoot: Bool
    /// Frameworks whose marks the page carries (`next`, `nuxt`, `react`, `vue`, `angular`,
    /// `svelte`, `gatsby`).
    package var frameworkMarkers: Set<String>
    /// Bytes of text outside tags, scripts and styles.
    package var visibleTextBytes: Int

    /// How much of a page is read: app shells are small, and a page's marks sit in its head
    /// and the start of its body.
    package static let readLimit = 4 << 20

    package init(
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

    /// Reads the evidence out of an HTML document (its first ``readLimit`` bytes) in one pass
    /// that jumps from tag to tag (ASCII, case-insensitive, no copy of the page); `mediaCount`
    /// is what the static parsers found.
    package init(html: Data, mediaCount: Int) {
        self = html.prefix(Self.readLimit).withUnsafeBytes { raw in
            var reader = EvidenceReader(bytes: raw, mediaCount: mediaCount)
            reader.read()
            return reader.evidence
        }
    }
}
