import Foundation
import HTTPTypes
import Hummingbird
import Trawl
import TrawlCore

/// `GET /v1/resolve?q=…[&cursor=…][&limit=…]`.
///
/// - `Accept: application/json` (default): one ``ResolveAnswer`` when the resolve is done.
/// - `Accept: application/x-ndjson`: one ``ResultSetLine`` per result set as it arrives, as
///   `trawl resolve --stream` prints them; a failure after the first set ends the stream with a
///   line carrying `error`.
/// - `Accept: text/event-stream`: the same lines as `result` events, then an `end` event
///   (`next`, `total`) or an `error` event.
///
/// A failure before the first result set is an HTTP error in every format.
struct ResolveRoutes: Sendable {
    let run: ResolveRun
    let maxLimit: Int
    var probing = ProbeDefaults()

    func add(to router: some RouterMethods<ServerRequestContext>) {
        router.get("/v1/resolve") { request, context in try await resolve(request, client: context.clientKey) }
    }

    func resolve(_ request: Request, client: String = "local") async throws -> Response {
        let parameters = try ResolveParameters(FormQuery(request), maxLimit: maxLimit, probing: probing)
        let format = StreamFormat(accept: request.headers[.accept])
        let sets = run.results(for: parameters, client: client)
        var headers: HTTPFields = [.contentType: format.contentType, .cacheControl: "no-store"]
        switch format {
        case .json:
            let answer = try await ResolveAnswer.collect(sets, input: parameters.text)
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONBody.encode(answer))))
        case .ndjson, .eventStream:
            let stream = try await ResolveRun.awaitingFirst(sets)
            // Proxies (nginx) hold streamed bodies back unless told not to.
            headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
            return Response(status: .ok, headers: headers, body: Self.body(stream, format: format, input: parameters.text))
        }
    }

    /// Writes each result set as it arrives, then the ending line or event.
    static func body(_ stream: AsyncThrowingStream<ResultSet, any Error>, format: StreamFormat, input: String) -> ResponseBody {
        ResponseBody { writer in
            var iterator = stream.makeAsyncIterator()
            var next: String?
            var total: Int?
            var totalIsLowerBound: Bool?
            var failure: APIError?
            while true {
                let set: ResultSet?
                do {
                    set = try await iterator.next()
                } catch {
                    failure = ErrorStatus.apiError(for: error)
                    break
                }
                guard let set else { break }
                next = set.next?.token ?? next
                if let setTotal = set.total {
                    total = setTotal
                    totalIsLowerBound = set.totalIsLowerBound
                }
                try await writer.write(frame(ResultSetLine(set, input: input), event: "result", format: format))
            }
            if let failure {
                if format == .ndjson {
                    var line = ResultSetLine(ResultSet(), input: input)
                    line.error = failure.summary
                    try await writer.write(frame(line, event: "error", format: format))
                } else {
                    try await writer.write(frame(APIError.ErrorBody(error: failure.summary), event: "error", format: format))
                }
            } else if format == .eventStream {
                try await writer.write(
                    frame(StreamEnd(input: Redaction.text(input), next: next, total: total, totalIsLowerBound: totalIsLowerBound), event: "end", format: format)
                )
            }
            try await writer.finish(nil)
        }
    }

    /// One JSON line, or one server-sent event whose data is that line.
    static func frame(_ value: some Encodable, event: String, format: StreamFormat) -> ByteBuffer {
        let json = JSONBody.encode(value)
        switch format {
        case .eventStream:
            return ByteBuffer(bytes: Array("event: \(event)\ndata: ".utf8) + json + Array("\n\n".utf8))
        case .json, .ndjson:
            return ByteBuffer(bytes: json + [0x0A])
        }
    }

    /// The `end` event: where the next page starts.
    struct StreamEnd: Codable {
        var input: String
        var next: String?
        var total: Int?
        /// `true` when `total` counts only part of the matches.
        var totalIsLowerBound: Bool?
    }
}
