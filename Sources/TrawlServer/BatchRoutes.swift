import Foundation
import Hummingbird
import NIOCore
import Trawl
import TrawlCore

/// `POST /v1/batches[?probe=true[&keepDead=true]]`, `GET /v1/batches/{id}`, `GET /v1/batches/{id}/results`,
/// `DELETE /v1/batches/{id}`.
///
/// The list is posted as text (`text/plain` or `text/uri-list`: one URL per line, `#` comments
/// and blank lines skipped, as a `trawl batch` file) or as JSON `{"urls": [...]}`
/// (`application/json`); any other body type is `415 unsupported-media-type`. Results are JSON lines, one per input URL,
/// exactly as `trawl batch --out` writes them, each once and in the order they finished;
/// `after=N` skips the first N (resume a read), `follow=true` keeps the answer open until the
/// batch is finished.
struct BatchRoutes: Sendable {
    let manager: BatchManager?
    let maxBodyBytes: Int
    /// What a batch posted with `probe=true` probes with (the server's `--probe-renditions`).
    var probe = MediaProber.Options()

    struct Created: Codable {
        var id: String
        var status: String
        var results: String
    }

    struct JSONList: Codable {
        var urls: [String]
    }

    func add(to router: some RouterMethods<ServerRequestContext>) {
        router.post("/v1/batches") { request, context in try await create(request, client: context.clientKey) }
        router.delete("/v1/batches/{id}") { _, context in
            try await requireManager().delete(context.parameters.get("id") ?? "")
            return Response(status: .noContent)
        }
        router.get("/v1/batches/{id}") { _, context in try await status(context.parameters.get("id") ?? "") }
        router.get("/v1/batches/{id}/results") { request, context in try await results(request, id: context.parameters.get("id") ?? "") }
    }

    private func requireManager() throws -> BatchManager {
        guard let manager else {
            throw APIError(
                .serviceUnavailable, code: "batches-unavailable",
                message: "this server takes no batches (it has no batch folder)")
        }
        return manager
    }

    /// The body types a list may be posted as.
    enum ListType {
        case json
        case text

        /// The type of a body with `Content-Type: value`; a body without one is text. Form,
        /// multipart and XML bodies are refused: a list is not a form, and `curl --data-binary`
        /// without `-H` labels it form-encoded, so the message says how to send it.
        init(contentType value: String?) throws {
            let type = value.map { $0.split(separator: ";", maxSplits: 1)[0].trimmingCharacters(in: .whitespaces).lowercased() } ?? "text/plain"
            switch type {
            case "application/json": self = .json
            case "text/plain", "text/uri-list", "": self = .text
            default:
                throw APIError(
                    .unsupportedMediaType, code: "unsupported-media-type",
                    message:
                        "a batch's list is text/plain or text/uri-list (one URL per line) or application/json ({\"urls\": [...]}), not '\(ResolveParameters.shown(type))' (with curl: -H 'Content-Type: text/plain' --data-binary @urls.txt)"
                )
            }
        }
    }

    func create(_ request: Request, client: String) async throws -> Response {
        let manager = try requireManager()
        let parameters = FormQuery(request)
        let probing = try parameters.flag("probe")
        // Without probing there is nothing dead to keep: `keepDead` alone changes nothing.
        let keepDead = try parameters.flag("keepDead")
        var probe: MediaProber.Options?
        if probing {
            var options = self.probe
            options.keepDead = keepDead
            probe = options
        }
        let type = try ListType(contentType: request.headers[.contentType])
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: maxBodyBytes)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, code: "request-too-large", message: "the body is larger than \(maxBodyBytes) bytes")
        }
        let text = String(decoding: body.readableBytesView, as: UTF8.self)
        let list: String
        if type == .json {
            do {
                list = try JSONDecoder().decode(JSONList.self, from: Data(body.readableBytesView)).urls.joined(separator: "\n")
            } catch {
                throw APIError.usage("invalid-json", "the body is not {\"urls\": [...]}: \(ErrorSentence.describe(error))")
            }
        } else {
            list = text
        }
        // Other lines become failed jobs (each says why); a list with no web URL at all is a
        // mistake of the whole request (a wrong file, a JSON body sent as text).
        let hasURL = list.split(whereSeparator: \.isNewline).contains { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces).lowercased()
            return trimmed.hasPrefix("http://") || trimmed.hasPrefix("https://")
        }
        guard hasURL else { throw APIError.usage("empty-batch", "the list has no http or https URL (one URL per line)") }
        let id = try await manager.create(list: list.hasSuffix("\n") ? list : list + "\n", probe: probe, client: client)
        let created = Created(id: id, status: "/v1/batches/\(id)", results: "/v1/batches/\(id)/results")
        return Response(
            status: .accepted, headers: [.contentType: "application/json; charset=utf-8", .location: created.status],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONBody.encode(created))))
    }

    func status(_ id: String) async throws -> Response {
        let status = try await requireManager().status(id)
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONBody.encode(status))))
    }

    func results(_ request: Request, id: String) async throws -> Response {
        let manager = try requireManager()
        let parameters = FormQuery(request)
        var after: Int64 = 0
        if let text = parameters.get("after") {
            // Any count of digits: one past every result there can be skips them all.
            guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                throw APIError.usage("invalid-cursor", "after '\(ResolveParameters.shown(text))' is not a count of results already read")
            }
            after = Int64(text) ?? .max
        }
        let follow = try parameters.flag("follow")
        let start = after
        // Unknown batches are a 404 before the stream starts.
        _ = try await manager.status(id)
        let body = ResponseBody { writer in
            var seq = start
            while true {
                // Asked before reading: results committed as the run ends are read once more.
                let wasRunning = await manager.isRunning(id)
                let rows = try await manager.results(id, after: seq, limit: 512)
                if let last = rows.last {
                    seq = last.seq
                    var buffer = ByteBuffer()
                    for row in rows {
                        buffer.writeString(row.line)
                        buffer.writeInteger(UInt8(ascii: "\n"))
                    }
                    try await writer.write(buffer)
                    continue
                }
                guard follow, wasRunning else { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok, headers: [.contentType: "application/x-ndjson; charset=utf-8", .cacheControl: "no-store"], body: body)
    }
}
