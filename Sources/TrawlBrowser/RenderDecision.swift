/// Whether a statically fetched page needs a browser: pure logic over ``StaticPageEvidence``.
///
/// A page with media never needs one (a static page must never start a browser). A page without
/// media needs one only when it looks script-driven: an empty app root; scripts with next to no
/// text of their own; or a framework's marks or a `<noscript>` on a page with little text. Anything
/// else — an article without GIFs, server-rendered by a framework or carrying a tracking pixel in
/// `<noscript>`, as most news pages do — keeps its empty static result.
package enum RenderDecision {
    /// What to do with the page.
    package enum Choice: Sendable, Hashable {
        /// The static result stands.
        case keepStatic
        /// Render the page in the browser.
        case render
    }

    /// Below this much visible text, a page whose content arrives by script is taken as an empty shell.
    package static let shellTextBytes = 200
    /// From this much visible text on, a page carries its content in its markup: a framework's
    /// marks (server rendering) or a `<noscript>` (a tracking pixel, a comments widget's notice)
    /// do not make it a shell. Articles in the corpus have 2.3–70 KB; app shells a few hundred bytes.
    package static let contentTextBytes = 2000

    package static func decide(_ evidence: StaticPageEvidence) -> Choice {
        guard evidence.mediaCount == 0 else { return .keepStatic }
        return looksScriptDriven(evidence) ? .render : .keepStatic
    }

    package static func looksScriptDriven(_ evidence: StaticPageEvidence) -> Bool {
        if evidence.hasEmptyAppRoot { return true }
        let littleText = evidence.visibleTextBytes < contentTextBytes
        if !evidence.frameworkMarkers.isEmpty && littleText { return true }
        guard evidence.scriptCount > 0 else { return false }
        return evidence.visibleTextBytes < shellTextBytes || (evidence.hasNoscript && littleText)
    }
}
