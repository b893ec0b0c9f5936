public import Foundation

/// How a page is loaded before its first static fetch.
public enum RenderPlan: Sendable, Hashable {
    /// Fetch statically; render only if the static result says the page needs it.
    case fetchFirst
    /// Render at once (the host's pages needed a browser, or rendering is always wanted).
    case renderDirectly
}

/// Renders pages whose media appear only after their scripts run (a headless browser), and
/// decides when that is worth it. The web engine asks it before and after its static fetch; a
/// page is rendered only when the renderer says so, so a static page never starts a browser.
public protocol PageRenderer: Sendable {
    /// Before any fetch: fetch statically first, or render at once.
    func plan(for url: URL) async -> RenderPlan
    /// After a static fetch that found no media: whether the page looks script-driven enough
    /// to render. `document` is the static document, when there was one.
    func shouldRender(afterStatic document: Payload?, url: URL) async -> Bool
    /// What the static fetch taught about the page's host: whether it needed the browser.
    func learn(url: URL, neededBrowser: Bool) async
    /// The rendered page: each XHR/fetch response it caught (origin ``PayloadOrigin/browserXHR``),
    /// then the DOM once the page settled (origin ``PayloadOrigin/domSnapshot``).
    func render(_ request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error>
}
