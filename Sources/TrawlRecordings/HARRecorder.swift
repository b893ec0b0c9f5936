public import Foundation
public import TrawlCore

/// Collects the payloads of a run as HAR entries, scrubbed on the way in.
///
/// ```swift
/// let recorder = HARRecorder()
/// let environment = Environment(.init(recorder: recorder))
/// // … resolve …
/// try await recorder.write(to: URL(fileURLWithPath: "run.har"))
/// ```
public actor HARRecorder {
    public let scrubber: Scrubber
    private var entries: [HAREntry] = []

    public init(scrubber: Scrubber = Scrubber()) {
        self.scrubber = scrubber
    }

    /// Records one fetched payload with the request that asked for it.
    public func record(_ payload: Payload, for request: FetchRequest, started: Date, duration: Duration) {
        entries.append(scrubber.scrub(HAREntry(payload: payload, request: request, started: started, duration: duration)))
    }

    /// Records an entry made elsewhere (a browser's response), scrubbed like the others.
    public func record(_ entry: HAREntry) {
        entries.append(scrubber.scrub(entry))
    }

    /// The entries so far, in the order they arrived.
    public var recorded: [HAREntry] { entries }

    /// The archive so far; the comment is scrubbed like the entries (it often quotes a URL).
    public func har(comment: String? = nil) -> HAR {
        HAR(log: HAR.Log(entries: entries, comment: comment.map(scrubber.scrubQuery(in:))))
    }

    public func write(to file: URL, comment: String? = nil) throws {
        try har(comment: comment).write(to: file)
    }
}

extension HAREntry {
    /// The entry for a payload the loader returned for `request` (redirects already followed).
    public init(payload: Payload, request: FetchRequest, started: Date = Date(), duration: Duration = .zero) {
        let headers = payload.info.headers.map { HAREntry.NameValue(name: $0.name, value: $0.value) }
        let mimeType =
            payload.info.headers["Content-Type"] ?? payload.info.contentType.map { type in
                payload.info.charset.map { "\(type); charset=\($0)" } ?? type
            } ?? ""
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        let requested = payload.info.requestURL.absoluteString
        let final = payload.info.url.absoluteString
        self.init(
            startedDateTime: HAREntry.timestamp(started), time: milliseconds,
            request: Request(
                method: request.method, url: requested,
                headers: request.headers.map { HAREntry.NameValue(name: $0.name, value: $0.value) },
                postData: request.body.map { PostData(mimeType: request.headers["Content-Type"] ?? "", text: String(decoding: $0, as: UTF8.self)) }),
            response: Response(status: payload.info.status, headers: headers, content: Content(body: payload.body, mimeType: mimeType)),
            timings: Timings(send: 0, wait: milliseconds, receive: 0),
            origin: payload.info.origin, finalURL: final == requested ? nil : final)
    }
}
