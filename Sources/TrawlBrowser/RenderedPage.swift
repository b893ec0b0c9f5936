package import Foundation
package import TrawlCore

/// What a browser made of one page.
package struct RenderedPage: Sendable {
    /// The URL asked for.
    package var requestURL: URL
    /// Where the page ended up, after HTTP and script redirects.
    package var finalURL: URL
    /// The main document's HTTP status (200 when unknown).
    package var status: Int
    /// The main document's response headers.
    package var headers: HTTPHeaders
    /// The document's HTML (with its doctype) once the page settled, open shadow roots written
    /// inline in their hosts (see `DOMSnapshot`).
    package var html: Data
    /// Every XHR/fetch response with a JSON or HTML body, in the order their bodies arrived.
    package var responses: [Payload]
    /// URLs of requests not carried out (images, fonts, media, style sheets by default).
    package var blockedRequests: [String]
    /// Scrolls that brought new content.
    package var scrolls: Int
    /// `false` when the page budget ran out before the network went quiet.
    package var settled: Bool
    /// Settled before the whole quiet window: the page's scripts had nothing pending
    /// (``BrowserConfiguration/idleProbeAfter``).
    package var settledEarly = false
    /// The DOM of each iframe (same-origin ones read through the page, other sites' from their
    /// own renderer), origin ``PayloadOrigin/domSnapshot``, `url` the frame's.
    package var frames: [Payload] = []

    /// The DOM snapshot as a payload: origin ``PayloadOrigin/domSnapshot``, `url` the final URL.
    package var snapshot: Payload {
        Payload(
            body: html,
            info: PayloadInfo(
                url: finalURL, requestURL: requestURL, status: status, headers: headers, contentType: "text/html",
                charset: "utf-8", origin: .domSnapshot))
    }
}
