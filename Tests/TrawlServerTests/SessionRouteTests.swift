import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TrawlServer
import TrawlTesting

/// `/v1/sessions`: search as you type over HTTP, on a live socket, on the bundled recordings.
///
/// The event stream of a session ends when the session is closed, so each test reads it whole
/// after `DELETE`, on a connection of its own (the test client's connection answers in order);
/// in between, the tests follow the session by polling its state. When the stream's request
/// reaches the server is not known, so what is checked of it holds whenever it starts.
@Suite("/v1/sessions", .timeLimit(.minutes(5)))
struct SessionRouteTests {
    /// Polls `GET /v1/sessions/{id}` until `done` says the state is the one waited for.
    static func waitForState(
        _ client: some TestClientProtocol, id: String, _ done: ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        var last: [String: Any] = [:]
        do {
            try await waitUntil("session \(id) to reach the state waited for", interval: .milliseconds(20)) {
                last = try await client.execute(uri: "/v1/sessions/\(id)", method: .get).json()
                return done(last)
            }
        } catch let error as WaitTimedOut {
            Issue.record("\(error); last: \(last)")
        }
        return last
    }

    static func settled(_ query: String) -> ([String: Any]) -> Bool {
        { state in
            state["query"] as? String == query
                && (state["state"] as? String == "failed" || (state["state"] as? String == "results" && state["loading"] as? Bool == false))
        }
    }

    static func open(_ client: some TestClientProtocol, _ parameters: String = "") async throws -> String {
        let opened = try await client.execute(uri: "/v1/sessions\(parameters)", method: .post)
        #expect(opened.status == .created, "\(opened.text)")
        let id = try #require(try opened.json()["id"] as? String)
        #expect(opened.headers[.location] == "/v1/sessions/\(id)")
        #expect(try opened.json()["events"] as? String == "/v1/sessions/\(id)/events")
        return id
    }

    /// `GET /v1/sessions/{id}/events` on a connection of its own; the task ends with the stream.
    static func stream(port: Int?, _ path: String, ndjson: Bool = true) throws -> Task<(String, String), any Error> {
        let port = try #require(port)
        return Task {
            try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
                var headers: HTTPFields = [.connection: "keep-alive"]
                if ndjson { headers[.accept] = "application/x-ndjson" }
                let response = try await client.execute(TestClient.Request(path, method: .get, authority: "localhost", headers: headers))
                return (response.head.headerFields[.contentType] ?? "", response.body.map { String(buffer: $0) } ?? "")
            }
        }
    }

    /// Every event of a finished NDJSON stream (keep-alive blank lines skipped).
    static func events(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON line: \(line)")
        }
    }

    @Test func aSessionSearchesAndLoadMoreStreamsOnlyWhatIsNew() async throws {
        let app = ServerFixture.application(try ServerFixture.replaying())
        try await app.test(.live) { client in
            let id = try await Self.open(client, "?debounce=0")
            let asked = try await client.execute(uri: "/v1/sessions/\(id)/query?q=\(encoded("!giphy cats"))&now=true", method: .post)
            #expect(asked.status == .accepted, "\(asked.text)")
            let sequence = try #require(try asked.json()["sequence"] as? Int)

            let first = try await Self.waitForState(client, id: id, Self.settled("!giphy cats"))
            #expect(first["state"] as? String == "results" && first["sequence"] as? Int == sequence, "\(first)")
            #expect(first["hasMore"] as? Bool == true, "\(first)")
            let firstSets = try #require(first["sets"] as? [[String: Any]])
            let firstMedia = Set(firstSets.flatMap { ($0["media"] as? [[String: Any]] ?? []).compactMap { $0["url"] as? String } })
            #expect(firstMedia.count >= 3)

            // A client that has the first page listens on from there.
            let stream = try Self.stream(port: client.port, "/v1/sessions/\(id)/events?after=\(sequence).\(firstSets.count)")
            let more = try await client.execute(uri: "/v1/sessions/\(id)/more", method: .post).json()
            #expect(more["started"] as? Bool == true && more["sequence"] as? Int == sequence, "\(more)")
            let second = try await Self.waitForState(client, id: id) { state in
                state["loading"] as? Bool == false && ((state["sets"] as? [Any])?.count ?? 0) > firstSets.count
            }
            let allSets = try #require(second["sets"] as? [[String: Any]])
            let secondMedia = Set(allSets.flatMap { ($0["media"] as? [[String: Any]] ?? []).compactMap { $0["url"] as? String } })
            #expect(secondMedia.isStrictSuperset(of: firstMedia), "\(second)")
            if second["hasMore"] as? Bool == false {
                // Guarded: no page after the last.
                #expect(try await client.execute(uri: "/v1/sessions/\(id)/more", method: .post).json()["started"] as? Bool == false)
            }

            #expect(try await client.execute(uri: "/v1/sessions/\(id)", method: .delete).status == .noContent)
            let (contentType, text) = try await stream.value
            #expect(contentType.hasPrefix("application/x-ndjson"))
            let events = try Self.events(text)
            // Each set is sent once: never the first page again, `from` always where the
            // client's list ends, and the next page's sets arrive appended.
            var have = firstSets.count
            var appended = false
            for event in events where event["state"] as? String == "results" {
                let from = try #require(event["from"] as? Int)
                let sets = try #require(event["sets"] as? [Any])
                #expect(from == have, "\(event)")
                appended = appended || !sets.isEmpty
                have = from + sets.count
            }
            #expect(have == allSets.count && appended, "\(events)")
            #expect(events.last?["state"] as? String == "idle", "closing goes idle, then the stream ends: \(events)")

            // A closed session is gone.
            let gone = try await client.execute(uri: "/v1/sessions/\(id)/query?q=cats", method: .post)
            #expect(gone.status == .notFound)
            #expect(try gone.errorCode() == "not-found")
        }
    }

    @Test func theLatestQueryWins() async throws {
        let app = ServerFixture.application(try ServerFixture.replaying())
        try await app.test(.live) { client in
            let id = try await Self.open(client, "?debounce=0")
            let stream = try Self.stream(port: client.port, "/v1/sessions/\(id)/events")
            let older = try await client.execute(uri: "/v1/sessions/\(id)/query?q=\(encoded("https://unrecorded.example/slow"))&now=true", method: .post)
            let newer = try await client.execute(uri: "/v1/sessions/\(id)/query?q=\(encoded("!giphy cats"))&now=true", method: .post)
            let olderSequence = try #require(try older.json()["sequence"] as? Int)
            let newerSequence = try #require(try newer.json()["sequence"] as? Int)
            #expect(newerSequence > olderSequence)
            let settled = try await Self.waitForState(client, id: id, Self.settled("!giphy cats"))
            #expect(settled["state"] as? String == "results", "\(settled)")
            #expect(try await client.execute(uri: "/v1/sessions/\(id)", method: .delete).status == .noContent)

            let events = try Self.events(try await stream.value.1)
            // Nothing of the replaced query once the newer one has shown.
            let newerStart = try #require(events.firstIndex { $0["query"] as? String == "!giphy cats" }, "\(events)")
            #expect(events[newerStart...].allSatisfy { ($0["query"] as? String).map { $0 == "!giphy cats" } ?? true }, "\(events)")
            #expect(events[newerStart...].allSatisfy { ($0["sequence"] as? Int).map { $0 == newerSequence } ?? true }, "\(events)")
            #expect(events.contains { $0["state"] as? String == "results" && $0["sequence"] as? Int == newerSequence })
        }
    }

    @Test func serverSentEventsNameEachState() async throws {
        let app = ServerFixture.application(try ServerFixture.replaying())
        try await app.test(.live) { client in
            let id = try await Self.open(client, "?debounce=0&limit=2")
            let stream = try Self.stream(port: client.port, "/v1/sessions/\(id)/events", ndjson: false)
            _ = try await client.execute(uri: "/v1/sessions/\(id)/query?q=\(encoded("https://unrecorded.example/page"))&now=true", method: .post)
            let failed = try await Self.waitForState(client, id: id, Self.settled("https://unrecorded.example/page"))
            #expect(failed["state"] as? String == "failed")
            #expect((failed["error"] as? [String: Any])?["code"] as? String == "no-recorded-entry", "\(failed)")
            _ = try await client.execute(uri: "/v1/sessions/\(id)", method: .delete)
            let (contentType, text) = try await stream.value
            #expect(contentType.hasPrefix("text/event-stream"))
            #expect(text.contains("event: failed\ndata: {"), "\(text)")
            #expect(text.contains("\"no-recorded-entry\""))
            #expect(text.hasSuffix("event: idle\ndata: {\"state\":\"idle\"}\n\n"), "\(text)")
        }
    }

    @Test func badRequestsGetTheirErrors() async throws {
        let app = ServerFixture.application(try ServerFixture.replaying { $0.limits.maxSessions = 1 })
        try await app.test(.router) { client in
            for bad in ["?debounce=5000", "?debounce=x", "?limit=0"] {
                let response = try await client.execute(uri: "/v1/sessions\(bad)", method: .post)
                #expect(response.status == .badRequest, "\(bad)")
            }
            let id = try await Self.open(client)
            let full = try await client.execute(uri: "/v1/sessions", method: .post)
            #expect(full.status == .serviceUnavailable)
            #expect(try full.errorCode() == "too-many-sessions")
            #expect(full.headers[.retryAfter] != nil)

            let local = try await client.execute(uri: "/v1/sessions/\(id)/query?q=\(encoded("file:///etc/passwd"))", method: .post)
            #expect(try local.errorCode() == "unsupported-scheme")
            let after = try await client.execute(uri: "/v1/sessions/\(id)/events?after=x", method: .get)
            #expect(after.status == .badRequest)
            for (method, path) in [(HTTPRequest.Method.post, "/query?q=x"), (.post, "/more"), (.get, "/events"), (.get, ""), (.delete, "")] {
                let unknown = try await client.execute(uri: "/v1/sessions/00000000000000000000000000000000\(path)", method: method)
                #expect(unknown.status == .notFound, "\(method) \(path)")
            }
            #expect(try await client.execute(uri: "/v1/sessions/\(id)", method: .delete).status == .noContent)
            // Closing made room.
            _ = try await Self.open(client)
        }
    }

    @Test func anIdleSessionIsClosed() async throws {
        let app = ServerFixture.application(try ServerFixture.replaying { $0.limits.sessionIdleTimeout = .zero })
        try await app.test(.router) { client in
            let id = try await Self.open(client)
            // Any time at all is too long: the session idled out before it was used.
            let late = try await client.execute(uri: "/v1/sessions/\(id)/query?q=cats", method: .post)
            #expect(late.status == .notFound)
        }
    }
}
