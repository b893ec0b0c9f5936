import Foundation
package import TrawlCore

/// A ``PayloadTransport`` that renders each request in a headless browser: it yields every
/// XHR/fetch payload the page received (origin ``PayloadOrigin/browserXHR``, each with its own
/// URL), then the DOM once the page settled (origin ``PayloadOrigin/domSnapshot``, `url` the final
/// URL after script redirects, `text/html`), then each iframe's DOM (also `domSnapshot`, at the
/// frame's URL).
///
/// Both flow through the same scanner and parser chain as fetched documents. Ending the iteration
/// (or cancelling its task) closes the page's tab.
package struct BrowserTransport: PayloadTransport {
    package let pool: BrowserPool

    package init(pool: BrowserPool) {
        self.pool = pool
    }

    package func payloads(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        let pool = pool
        return AsyncThrowingStream(running: { continuation in
            let page = try await pool.render(request) { payload in continuation.yield(payload) }
            continuation.yield(page.snapshot)
            for frame in page.frames { continuation.yield(frame) }
        })
    }
}
