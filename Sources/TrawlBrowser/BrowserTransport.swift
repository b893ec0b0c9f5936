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
///
/// A page whose renderer or browser died under it (``BrowserError/Code/crashed``) is rendered
/// once more, in a fresh tab (and a fresh browser when the browser died), within what is left
/// of its time: a crash is most often the machine's (memory) or the browser's, not the page's.
/// The second crash is the page's answer. XHR payloads the first try handed on stay handed on;
/// the second try's repeat them, and the parsers' results are told apart by their media, so
/// nothing is sent twice.
package struct BrowserTransport: PayloadTransport {
    package let pool: BrowserPool
    /// Renders after the first of a page that crashed.
    package var crashRetries = 1
    /// A crashed page is not tried again with less time left than this.
    static let shortestRetry = Duration.seconds(1)

    package init(pool: BrowserPool) {
        self.pool = pool
    }

    package func payloads(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        let pool = pool
        let retries = crashRetries
        return AsyncThrowingStream(running: { continuation in
            let clock = ContinuousClock()
            let deadline = clock.now + min(pool.configuration.pageBudget, request.timeout ?? pool.configuration.pageBudget)
            var attempt = request
            var retriesLeft = retries
            while true {
                do {
                    let page = try await pool.render(attempt) { payload in continuation.yield(payload) }
                    continuation.yield(page.snapshot)
                    for frame in page.frames { continuation.yield(frame) }
                    return
                } catch let error as BrowserError where error.code == .crashed && retriesLeft > 0 {
                    try Task.checkCancellation()
                    // The page's time is one budget for all its tries.
                    let left = clock.now.duration(to: deadline)
                    guard left >= Self.shortestRetry else { throw error }
                    attempt.timeout = left
                    retriesLeft -= 1
                }
            }
        })
    }
}
