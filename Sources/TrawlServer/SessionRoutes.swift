import Foundation
import HTTPTypes
import Hummingbird
import Trawl
import TrawlCore

/// Search as you type over HTTP: a ``SearchSession`` per client, so debouncing, latest-wins
/// cancellation and guarded load-more are the server's job, not every app's.
///
/// - `POST /v1/sessions[?debounce=MS][&limit=N][&probe=true[&keepDead=true]]` → `201 {"id", "events"}`;
///   `probe=true` checks each media as `/v1/resolve` does.
/// - `POST /v1/sessions/{id}/query?q=TEXT[&now=true]` → `202 {"sequence"}`: each keystroke's
///   text; the session searches once the typing stops (`now=true`: at once). Empty text
///   cancels and goes idle. Checked as `/v1/resolve` checks `q`.
/// - `POST /v1/sessions/{id}/more` → `200 {"started", "sequence"}`: the next page, if there is one
///   and none is in flight.
/// - `GET /v1/sessions/{id}` → the current state, every set of the query (for a client that
///   polls rather than streams).
/// - `GET /v1/sessions/{id}/events[?after=SEQUENCE.COUNT]`: the session's states as they change
///   (``SessionEvent``), server-sent events by default or JSON lines with
///   `Accept: application/x-ndjson`; a keep-alive every 15 s.
/// - `DELETE /v1/sessions/{id}` → `204`: cancels its work, ends its event streams.
struct SessionRoutes: Sendable {
    let registry: SessionRegistry
    let maxLimit: Int
    /// `probe` and `keepDead` when a request does not say.
    var probing = ProbeDefaults()
    /// How often an event stream with nothing to say proves it is alive (and learns when its
    /// client has gone: a write to a closed connection fails).
    var keepAlive: Duration = .seconds(15)

    struct Opened: Codable {
        var id: String
        var events: String
    }

    struct Accepted: Codable {
        var sequence: Int
    }

    struct MoreAnswer: Codable {
        var started: Bool
        var sequence: Int
    }

    func add(to router: some RouterMethods<ServerRequestContext>) {
        router.post("/v1/sessions") { request, context in try await open(request, client: context.clientKey) }
        router.post("/v1/sessions/{id}/query") { request, context in try await query(request, id: context.parameters.get("id") ?? "") }
        router.post("/v1/sessions/{id}/more") { _, context in try await more(id: context.parameters.get("id") ?? "") }
        router.get("/v1/sessions/{id}") { _, context in
            let session = try await registry.watch(context.parameters.get("id") ?? "")
            var cursor = try SessionEventCursor(after: nil)
            return Self.json(cursor.event(for: session.state), status: .ok)
        }
        router.get("/v1/sessions/{id}/events") { request, context in try await events(request, id: context.parameters.get("id") ?? "") }
        router.delete("/v1/sessions/{id}") { _, context in
            try await registry.close(context.parameters.get("id") ?? "")
            return Response(status: .noContent)
        }
    }

    func open(_ request: Request, client: String) async throws -> Response {
        let parameters = FormQuery(request)
        var debounce: Duration?
        if let text = parameters.get("debounce") {
            guard let milliseconds = Int(text), (0...2000).contains(milliseconds) else {
                throw APIError.usage("invalid-request", "debounce '\(ResolveParameters.shown(text))' is not a number of milliseconds from 0 to 2000")
            }
            debounce = .milliseconds(milliseconds)
        }
        var limit: Int?
        if let text = parameters.get("limit") {
            guard let value = Int(text), (1...maxLimit).contains(value) else {
                throw APIError.usage("invalid-limit", "limit '\(ResolveParameters.shown(text))' is not a number from 1 to \(maxLimit)")
            }
            limit = value
        }
        let probe = try parameters.flag("probe", default: probing.probe)
        // Without probing there is nothing dead to keep: `keepDead` alone changes nothing.
        let keepDead = try parameters.flag("keepDead", default: probing.keepDead) && probe
        let id = try await registry.open(debounce: debounce, limit: limit, probe: probe, keepDead: keepDead, client: client)
        let opened = Opened(id: id, events: "/v1/sessions/\(id)/events")
        return Self.json(opened, status: .created, extra: [.location: "/v1/sessions/\(id)"])
    }

    func query(_ request: Request, id: String) async throws -> Response {
        let parameters = FormQuery(request)
        let text = (parameters.get("q") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if !text.isEmpty { try ResolveParameters.check(text) }
        let now = try parameters.flag("now")
        let session = try await registry.use(id)
        let sequence = now ? await session.searchNow(text) : await session.search(text)
        return Self.json(Accepted(sequence: sequence), status: .accepted)
    }

    func more(id: String) async throws -> Response {
        let session = try await registry.use(id)
        let started = await session.loadMore()
        return Self.json(MoreAnswer(started: started, sequence: await session.currentSequence), status: .ok)
    }

    func events(_ request: Request, id: String) async throws -> Response {
        let start = try SessionEventCursor(after: FormQuery(request).get("after"))
        let format: StreamFormat = StreamFormat(accept: request.headers[.accept]) == .ndjson ? .ndjson : .eventStream
        let session = try await registry.watch(id)
        let frames = Self.frames(of: session, keepAlive: keepAlive)
        var headers: HTTPFields = [.contentType: format.contentType, .cacheControl: "no-store"]
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        let body = ResponseBody { writer in
            var cursor = start
            for await frame in frames {
                switch frame {
                case .state(let state):
                    let event = cursor.event(for: state)
                    try await writer.write(ResolveRoutes.frame(event, event: event.state, format: format))
                case .keepAlive:
                    // A comment line in SSE; a blank line, which JSON-lines readers skip.
                    try await writer.write(ByteBuffer(string: format == .eventStream ? ": keep-alive\n\n" : "\n"))
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    private enum Frame: Sendable {
        case state(SearchSession.State)
        case keepAlive
    }

    /// The session's states with a keep-alive between; ends when the session closes. Both
    /// feeding tasks end with the stream (its reader stopping, or the client gone).
    private static func frames(of session: SearchSession, keepAlive: Duration) -> AsyncStream<Frame> {
        let (stream, continuation) = AsyncStream<Frame>.makeStream(bufferingPolicy: .unbounded)
        let events = session.events()
        let forward = Task {
            for await state in events { continuation.yield(.state(state)) }
            continuation.finish()
        }
        let beat = Task {
            while true {
                do { try await Task.sleep(for: keepAlive) } catch { return }
                continuation.yield(.keepAlive)
            }
        }
        continuation.onTermination = { _ in
            forward.cancel()
            beat.cancel()
        }
        return stream
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status, extra: HTTPFields = [:]) -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
        headers.append(contentsOf: extra)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONBody.encode(value))))
    }
}
