/// Whether a statically fetched page needs a browser: pure logic over ``StaticPageEvidence``.
///
/// A page with media never needs one (a static page must never start a browser). A page without
/// media needs one only when it looks script-driven: an empty app root, a framework's marks, or
/// scripts with next to no text of its own (or a `<noscript>` asking for JavaScript). Anything
/// else — an article without GIFs — keeps its empty static result.
public enum RenderDecision {
    /// What to do with the page.
    public enum Choice: Sendable, Hashable {
        /// The static result stands.
        case keepStatic
        /// Render the page in the browser.
        case render
    }

    /// Below this much visible text, a page whose content arrives by script is taken as an empty shell.
    public static let shellTextBytes = 200

    public static func decide(_ evidence: StaticPageEvidence) -> Choice {
        guard evidence.mediaCount == 0 else { return .keepStatic }
        return looksScriptDriven(evidence) ? .render : .keepStatic
    }

    public static func looksScriptDriven(_ evidence: StaticPageEvidence) -> Bool {
        if evidence.hasEmptyAppRoot || !evidence.frameworkMarkers.isEmpty { return true }
        guard evidence.scriptCount > 0 else { return false }
        return evidence.hasNoscript || evidence.visibleTextBytes < shellTextBytes
    }
}
