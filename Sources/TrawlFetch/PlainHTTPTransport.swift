import Foundation
package import TrawlCore

/// Speaks plain HTTP where a request says https, and hands back payloads under the https URL
/// asked for: for pointing a live run (with `--connect-to`) at a local mirror of the sites,
/// which serves HTTP. Never used unless asked for.
package struct PlainHTTPTransport: PayloadTransport {
    let base: any PayloadTransport

    package init(base: any PayloadTransport) {
        self.base = base
    }

    package func payloads(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        guard request.url.scheme?.lowercased() == "https", var parts = URLComponents(url: request.url, resolvingAgainstBaseURL: false) else {
            return base.payloads(for: request, context: context)
        }
        parts.scheme = "http"
        var downgraded = request
        downgraded.url = parts.url ?? request.url
        let plain = downgraded
        let base = self.base
        return AsyncThrowingStream(running: { continuation in
            for try await var payload in base.payloads(for: plain, context: context) {
                payload.info.requestURL = request.url
                if var final = URLComponents(url: payload.info.url, resolvingAgainstBaseURL: false), final.scheme == "http" {
                    final.scheme = "https"
                    payload.info.url = final.url ?? payload.info.url
                }
                continuation.yield(payload)
            }
        })
    }
}
