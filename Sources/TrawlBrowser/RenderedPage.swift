public import Foundation
public import TrawlCore

/// What a browser made of one page.
public struct RenderedPage: Sendable {
    /// The URL asked for.
    public var requestURL: URL
    /// Where the page ended up, after HTTP and script redirects.
    public var finalURL: URL
    /// The main document's HTTP status (200 when unknown).
    public var status: Int
    /// The main document's response headers.
    public var headers: HTTPHeaders
    /// The document's HTML (with its doctype) once the page settled, open shadow roots written
    /// inline in their hosts (see `DOMSnapshot`).
    public var html: Data
    /// Every XHR/fetch response with a JSON or HTML body, in the order their bodies arrived.
    public var responses: [Payload]
    /// URLs of requests not carried out (images, fonts, media, style sheets by default).
    public var blockedRequests: [String]
    /// Scrolls that brought new content.
    public var scrolls: Int
    /// `false` when the page budget ran out before the network went quiet.
    public var settled: Bool
    /// Settled before the whole quiet window: the page's scripts had nothing pending
    /// (``BrowserConfiguration/idleProbeAfter``).
    public var settledEarly = false
    /// The DOM of each iframe (same-origin ones read through the page, other sites' from their
    /// own renderer), origin ``PayloadOrigin/domSnapshot``, `url` the frame's.
    public var frames: [Payload] = []

    /// The DOM snapshot as a payload: origin ``PayloadOrigin/domSnapshot``, `url` the final URL.
    public var snapshot: Payload {
        Payload(
            body: html,
            info: PayloadInfo(
                url: finalURL, requestURL: requestURL, status: status, headers: headers, contentType: "text/html",
                charset: "utf-8", origin: .domSnapshot))
    }
}
