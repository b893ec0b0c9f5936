package import Foundation
package import TrawlCore
import TrawlFetch

/// The web engine's ``PageRenderer``: Chromium through a ``BrowserPool``, asked only when
/// ``BrowserMode`` and the page call for it.
///
/// In `auto` mode a page is fetched statically first; it is rendered only when the static
/// result found no media and the page looks script-driven (``RenderDecision``), and a host whose
/// pages needed rendering goes straight to the browser next time (``RenderMemory``, re-checked
/// statically now and then). The pool starts the browser on the first render, so a run of static
/// pages never starts one.
package struct AdaptiveRenderer: PageRenderer {
    package let mode: BrowserMode
    package let pool: BrowserPool
    package let memory: RenderMemory
    /// Navigate over plain HTTP where a URL says https (a local mirror behind `connectTo`), as
    /// the static transport does.
    package let plainHTTP: Bool

    package init(mode: BrowserMode, pool: BrowserPool, memory: RenderMemory = RenderMemory(), plainHTTP: Bool = false) {
        self.mode = mode
        self.pool = pool
        self.memory = memory
        self.plainHTTP = plainHTTP
    }

    package func plan(for url: URL) async -> RenderPlan {
        switch mode {
        case .always: return .renderDirectly
        case .never: return .fetchFirst
        case .auto:
            guard let host = url.host else { return .fetchFirst }
            return await memory.plan(for: host) == .renderDirectly ? .renderDirectly : .fetchFirst
        }
    }

    package func shouldRender(afterStatic document: Payload?, url: URL) async -> Bool {
        guard mode != .never, let document, document.info.isHTML || document.document != nil else { return false }
        return RenderDecision.decide(StaticPageEvidence(html: document.body, mediaCount: 0)) == .render
    }

    package func learn(url: URL, neededBrowser: Bool) async {
        guard mode == .auto, let host = url.host else { return }
        await memory.record(host: host, neededBrowser: neededBrowser)
    }

    package func render(_ request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        let browser = BrowserTransport(pool: pool)
        return plainHTTP ? PlainHTTPTransport(base: browser).payloads(for: request, context: context) : browser.payloads(for: request, context: context)
    }
}
