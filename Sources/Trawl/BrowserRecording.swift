import Foundation
import TrawlBrowser
import TrawlCore
import TrawlRecordings

/// The browser's requests in the same HAR as the static fetches: interceptors that write each
/// response the browser received into a `HARRecorder` (scrubbed like the others), and answer
/// each request from a replay — so a page that needs a browser replays offline.
extension RequestInterceptor {
    /// Records every response the browser got from the network (documents, scripts, XHR/fetch,
    /// redirects; never the blocked resource types, which are not fetched). Bodies over the size
    /// cap are recorded empty, with a comment saying so.
    /// - Parameters:
    ///   - recorder: where the browser's requests and responses are recorded.
    ///   - plainHTTP: the run spoke plain HTTP where URLs said https (a local mirror): record the
    ///     https URLs the page was asked for, as the static transport does.
    public static func recording(into recorder: HARRecorder, plainHTTP: Bool = false) -> RequestInterceptor {
        RequestInterceptor(observe: { request, response in
            var fetchRequest = FetchRequest(url: plainHTTP ? upgraded(request.url) : request.url)
            fetchRequest.method = request.method
            fetchRequest.headers = request.headers
            fetchRequest.body = request.body
            var headers = response.headers
            if plainHTTP, (300..<400).contains(response.status), let location = headers["Location"], let target = URL(string: location) {
                headers.remove(name: "Location")
                headers.add(name: "Location", value: upgraded(target).absoluteString)
            }
            let info = PayloadInfo(
                url: fetchRequest.url, requestURL: fetchRequest.url, status: response.status, headers: headers,
                origin: origin(of: request))
            var entry = HAREntry(
                payload: Payload(body: response.body, info: info), request: fetchRequest, started: request.started, duration: response.duration)
            if response.bodyOmitted { entry.response.content.comment = "body not kept (over the size cap or gone)" }
            await recorder.record(entry)
        })
    }

    /// Answers every request from `replay`'s entries (a recorded redirect is answered as the
    /// redirect, and the browser follows it). A request with no entry fails as if offline —
    /// or, with `passingUnmatched`, is left to the next interceptor and the network.
    public static func replaying(from replay: ReplayTransport, passingUnmatched: Bool = false) -> RequestInterceptor {
        RequestInterceptor(decide: { request in
            guard let entry = replay.recordedEntry(method: request.method, url: request.url.absoluteString) else {
                return passingUnmatched ? .next : .fail(.internetDisconnected)
            }
            return .fulfill(response(for: entry))
        })
    }

    /// The response a recorded entry stands for, as the browser is to receive it.
    static func response(for entry: HAREntry) -> InterceptedResponse {
        var headers = HTTPHeaders(entry.response.headers.map { HTTPHeaders.Field(name: $0.name, value: $0.value) })
        // Bodies in a HAR are decoded, and the browser counts the length itself.
        headers.remove(name: "Content-Encoding")
        headers.remove(name: "Content-Length")
        headers.remove(name: "Transfer-Encoding")
        if headers["Content-Type"] == nil, !entry.response.content.mimeType.isEmpty {
            headers.add(name: "Content-Type", value: entry.response.content.mimeType)
        }
        return InterceptedResponse(status: entry.response.status, headers: headers, body: entry.response.content.body ?? Data())
    }

    private static func origin(of request: InterceptedRequest) -> PayloadOrigin {
        switch request.resourceType {
        case "XHR", "Fetch": .browserXHR
        case "Document": .document
        default: .followUp(reason: "browser \(request.resourceType.lowercased())")
        }
    }

    private static func upgraded(_ url: URL) -> URL {
        guard url.scheme == "http", var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        parts.scheme = "https"
        return parts.url ?? url
    }
}
