import Foundation
import Hummingbird
import NIOCore
import TrawlCore

/// `POST /v1/batches`, `GET /v1/batches/{id}`, `GET /v1/batches/{id}/results`.
///
/// The list is posted as text (one URL per line, `#` comments and blank lines skipped, as a
/// `trawl batch` file) or as JSON `{"urls": [...]}`. Results are JSON lines, one per input URL,
/// exactly as `trawl batch --out` writes them, each once and in the order they finished;
/// `after=N` skips the first N (resume a read), `follow=true` keeps the answer open until the
/// batch is finished.
struct BatchRoutes: Sendable {
    let manager: BatchManager?
    let maxBodyBytes: Int

    struct Created: Codable {
        var id: String
        var status: String
        var results: String
    }

    struct JSONList: Codable {
        var urls: [String]
    }

    func add(to router: Router<ServerRequestContext>) {
        router.post("/v1/batches") { request, _ in try await create(request) }
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

    func create(_ request: Request) async throws -> Response {
        let manager = try requireManager()
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: maxBodyBytes)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, code: "request-too-large", message: "the body is larger than \(maxBodyBytes) bytes")
        }
        let text = String(decoding: body.readableBytesView, as: UTF8.self)
        let list: String
        if request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true {
            do {
                list = try JSONDecoder().decode(JSONList.self, from: Data(body.readableBytesView)).urls.joined(separator: "\n")
            } catch {
                throw APIError.usage("invalid-json", "the body is not {\"urls\": [...]}: \(ErrorSentence.describe(error))")
            }
        } else {
            list = text
        }
        let hasURL = list.split(whereSeparator: \.isNewline).contains { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return !trimmed.isEmpty && !trimmed.hasPrefix("#")
        }
        guard hasURL else { throw APIError.usage("empty-batch", "the list has no URL (one URL per line)") }
        let id = try await manager.create(list: list.hasSuffix("\n") ? list : list + "\n")
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
        let parameters = request.uri.queryParameters
        var after: Int64 = 0
        if let text = parameters.get("after") {
            guard let value = Int64(text), value >= 0 else {
                throw APIError.usage("invalid-cursor", "after '\(ResolveParameters.shown(text))' is not a count of results already read")
            }
            after = value
        }
        let follow = ["1", "true", "yes"].contains(parameters.get("follow")?.lowercased() ?? "")
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
