import Foundation
import TrawlCore

/// Wraps the environment's page renderer to count the pages the browser rendered, by outcome.
struct CountingRenderer: PageRenderer {
    let base: any PageRenderer
    let metrics: ServerMetrics

    func plan(for url: URL) async -> RenderPlan { await base.plan(for: url) }

    func shouldRender(afterStatic document: Payload?, url: URL) async -> Bool {
        await base.shouldRender(afterStatic: document, url: url)
    }

    func learn(url: URL, neededBrowser: Bool) async { await base.learn(url: url, neededBrowser: neededBrowser) }

    func render(_ request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        let base = self.base
        let metrics = self.metrics
        return AsyncThrowingStream(running: { continuation in
            do {
                for try await payload in base.render(request, context: context) { continuation.yield(payload) }
                metrics.recordRenderedPage(outcome: "ok")
            } catch {
                metrics.recordRenderedPage(outcome: ErrorSummary(error).code)
                throw error
            }
        })
    }
}
