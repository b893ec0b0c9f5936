/// What one rendered page may share with the next: `trawl … --isolate page|host`.
public enum BrowserIsolation: String, Sendable, Hashable, CaseIterable {
    /// A browser context and a tab per page, closed after it: nothing of one page reaches the next,
    /// and every page pays a renderer start. For pages of strangers (`trawl serve`).
    case page
    /// Pages of one host reuse a tab, its browser context and its renderer. Between two pages the
    /// tab is taken to `about:blank` (the first page's scripts stop), then everything the first
    /// page could leave behind is cleared: cookies, the HTTP cache, every origin's storage it
    /// reached (local storage, IndexedDB, Cache Storage, service workers…), the main origin's
    /// session storage, permissions, the tab's history and `window.name`. For one user's own
    /// list of pages (`resolve`, `batch`, `worker`).
    case host
}
