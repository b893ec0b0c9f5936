/// When pages are rendered in the browser: `trawl … --browser auto|always|never`.
public enum BrowserMode: String, Sendable, Hashable, CaseIterable {
    /// Fetch statically first; render only a page whose static result has no media and that
    /// looks script-driven, and remember per host that it needed rendering.
    case auto
    /// Render every page.
    case always
    /// Never start a browser.
    case never
}
