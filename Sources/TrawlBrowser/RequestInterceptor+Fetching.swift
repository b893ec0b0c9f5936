import Foundation
import TrawlCore
package import TrawlFetch

/// The address guard for the browser: Trawl fetches the page's requests itself and hands the
/// browser the answers.
extension RequestInterceptor {
    /// Fetches every request it is asked about through `loader` and fulfils it with the response
    /// (`Fetch.fulfillRequest`), so each connection a page causes is made — and checked by the
    /// loader's ``AddressPolicy`` as the socket opens — by libcurl, never by Chromium. Put it last:
    /// a replay or a rule before it answers first.
    ///
    /// The request keeps its method, headers and body; the response its status and headers
    /// (minus hop-by-hop ones and the encoding, the loader having decoded the body). A redirect is
    /// answered as the redirect: the browser follows it, and the next hop comes back here to be
    /// fetched and checked again (so `loader` must not follow redirects itself:
    /// ``LoaderConfiguration/followsRedirects`` off). A body over the loader's cap fails the
    /// request; a refused address fails it with ``InterceptionDecision/refuse(_:error:)`` and
    /// the loader's `refused-address` error, which is the page's own error when the page's
    /// document was refused. The transfer is cancelled when the page ends. Cookies are the
    /// loader's (its jar, with ``LoaderConfiguration/cookies``), not the browser context's.
    ///
    /// Only worth it with the browser offline (``BrowserConfiguration/offline``): then nothing
    /// the interceptor does not see — a worker's request, a WebSocket, a prefetch — reaches any
    /// address either.
    ///
    /// ```swift
    /// var loader = LoaderConfiguration(addressPolicy: .denyPrivate)
    /// loader.followsRedirects = false
    /// var browser = BrowserConfiguration()
    /// browser.offline = true
    /// let pool = BrowserPool(configuration: browser, interceptors: [.fetching(through: Loader(configuration: loader))])
    /// ```
    /// - Parameter observe: shown each response before the page gets it (a recorder: the browser
    ///   pauses no response that an interceptor fulfilled).
    package static func fetching(
        through loader: Loader, observe: (@Sendable (InterceptedRequest, InterceptedResponse) async -> Void)? = nil
    ) -> RequestInterceptor {
        RequestInterceptor(decide: { request in
            let fetchRequest = FetchRequest(
                url: request.url, method: request.method, headers: forwarded(request.headers), body: request.body,
                cachePolicy: .reloadIgnoringCache)
            let started = ContinuousClock.now
            let payload: Payload
            do {
                payload = try await loader.fetch(fetchRequest, origin: request.isDocument ? .document : .browserXHR)
            } catch let error as FetchError {
                return decision(for: error)
            } catch {
                return .fail(.failed)
            }
            if Task.isCancelled { return .fail(.aborted) }
            let response = InterceptedResponse(
                status: payload.info.status, headers: delivered(payload.info.headers), body: payload.body,
                duration: ContinuousClock.now - started)
            if let observe { await observe(request, response) }
            return .fulfill(response)
        })
    }

    /// The network error the page sees for a failed fetch.
    static func decision(for error: FetchError) -> InterceptionDecision {
        switch error.code {
        case .refusedAddress: .refuse(.addressUnreachable, error: error)
        case .hostNotFound: .fail(.nameNotResolved)
        case .connectionFailed: .fail(.connectionRefused)
        case .timedOut: .fail(.timedOut)
        case .cancelled: .fail(.aborted)
        default: .fail(.failed)
        }
    }

    /// Headers that describe one connection, not the message (RFC 9110 §7.6.1), and those libcurl
    /// writes itself for the request it sends.
    static let connectionHeaders: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade", "host", "content-length",
    ]

    /// The page's request headers as libcurl is to send them: its own `Accept-Encoding` (it
    /// decodes what it asks for) and no connection headers.
    static func forwarded(_ headers: HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(
            headers.filter { field in
                let name = field.name.lowercased()
                return !connectionHeaders.contains(name) && name != "accept-encoding"
            })
    }

    /// The response's headers as the browser is to receive them: the body is decoded and the
    /// browser counts its length itself.
    static func delivered(_ headers: HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(
            headers.filter { field in
                let name = field.name.lowercased()
                return !connectionHeaders.contains(name) && name != "content-encoding"
            })
    }
}
