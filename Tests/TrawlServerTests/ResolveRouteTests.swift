import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import Trawl
import TrawlServer
import TrawlTesting

/// `GET /v1/resolve` at router level, on the bundled recordings (nothing leaves the process).
@Suite("GET /v1/resolve", .timeLimit(.minutes(5)))
struct ResolveRouteTests {
    @Test func jsonAnswerHasTheMediaAndTheResolveFieldNames() async throws {
        let app = ServerFixture.application(try ServerFixture.replaying())
        try await app.test(.router) { client in
            let response = try await client.execute(uri: "/v1/resolve?q=\(encoded(giphyCatPage))", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            let answer = try response.json()
            #expect(answer["input"] as? String == giphyCatPage)
            #expect(answer["degraded"] as? Bool == false)
            let media = try #require(answer["media"] as? [[String: Any]])
            #expect(media.count == 1)
            // Decodes as the lines `trawl resolve --json` prints.
            let lines = try JSONDecoder().decode([MediaLine].self, from: JSONSerialization.data(withJSONObject: media))
            let urls = Set(lines.flatMap { [$0.url] + $0.renditions.map(\.url) })
            #expect(urls.contains(giphyCatGIF), "\(urls)")
            #expect(lines[0].width != nil && lines[0].still != nil)
        }
    }

    @Test func cursorLoadsTheNextPage() async throws {
        let app = ServerFixture.application(try ServerFixture.replaying())
        try await app.test(.router) { client in
            let first = try await client.execute(uri: "/v1/resolve?q=\(encoded("!giphy cats"))", method: .get).json()
            let firstMedia = try #require(first["media"] as? [[String: Any]])
            #expect(firstMedia.count >= 3)
            let next = try #require(first["next"] as? String)
            let second = try await client.execute(uri: "/v1/resolve?q=\(encoded("!giphy cats"))&cursor=\(encoded(next))", method: .get)
            #expect(second.status == .ok, "\(second.text)")
            let secondMedia = try #require(try second.json()["media"] as? [[String: Any]])
            #expect(secondMedia.count >= 2)
            let firstURLs = Set(firstMedia.compactMap { $0["url"] as? String })
            #expect(secondMedia.allSatisfy { !firstURLs.contains($0["url"] as? String ?? "") })
        }
    }

    @Test func limitCutsTheMedia() async throws {
        let app = ServerFixture.application(try ServerFixture.replaying())
        try await app.test(.router) { client in
            let all = try await client.execute(uri: "/v1/resolve?q=\(encoded(blogPost))", method: .get).json()
            #expect(((all["media"] as? [Any])?.count ?? 0) >= 4, "\(all)")
            let cut = try await client.execute(uri: "/v1/resolve?q=\(encoded(blogPost))&limit=2", method: .get).json()
            #expect((cut["media"] as? [Any])?.count == 2, "\(cut)")
        }
    }

    /// A page of the tests' own whose document and embedded JSON-LD each name a clip: two
    /// result sets, the second arriving after the first.
    static func twoSetSite() throws -> LoopbackServer {
        try LoopbackServer { _ in
            .html(
                """
                <!doctype html><html><head><title>Two clips</title>
                <meta property="og:video:url" content="https://media.test/first.mp4">
                <meta property="og:video:type" content="video/mp4">
                <script type="application/ld+json">{"@context":"https://schema.org","@type":"VideoObject","name":"Second","contentUrl":"https://media.test/second.mp4"}</script>
                </head><body><p>two</p></body></html>
                """)
        }
    }

    @Test func ndjsonStreamsEachResultSetAsResolveStreamPrintsIt() async throws {
        let site = try Self.twoSetSite()
        defer { site.shutdown() }
        let app = ServerFixture.application(try ServerFixture.live(site: site, hosts: ["clips.test"]))
        try await app.test(.live) { client in
            let response = try await client.execute(
                uri: "/v1/resolve?q=\(encoded("http://clips.test/two"))", method: .get, headers: [.accept: "application/x-ndjson"])
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("application/x-ndjson") == true)
            let lines = response.text.split(separator: "\n").map(String.init)
            let sets = try lines.map { try JSONDecoder().decode(ResultSetLine.self, from: Data($0.utf8)) }
            #expect(sets.count == 2, "\(response.text)")
            #expect(sets.map { $0.media.map(\.url) } == [["https://media.test/first.mp4"], ["https://media.test/second.mp4"]])
            #expect(sets.map { $0.media.first?.origin } == ["document", "embedded(ld+json#0)"])
            #expect(sets.allSatisfy { $0.input == "http://clips.test/two" && $0.error == nil })
        }
    }

    @Test func eventStreamSendsResultEventsThenEnd() async throws {
        let site = try Self.twoSetSite()
        defer { site.shutdown() }
        let app = ServerFixture.application(try ServerFixture.live(site: site, hosts: ["clips.test"]))
        try await app.test(.live) { client in
            let response = try await client.execute(
                uri: "/v1/resolve?q=\(encoded("http://clips.test/two"))", method: .get, headers: [.accept: "text/event-stream"])
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/event-stream") == true)
            let events = response.text.components(separatedBy: "\n\n").filter { !$0.isEmpty }
            let names = events.compactMap { $0.split(separator: "\n").first.map(String.init) }
            #expect(names == ["event: result", "event: result", "event: end"], "\(response.text)")
            let data = events.compactMap { $0.split(separator: "\n").last.map { String($0.dropFirst("data: ".count)) } }
            let second = try JSONDecoder().decode(ResultSetLine.self, from: Data(data[1].utf8))
            #expect(second.media.map(\.url) == ["https://media.test/second.mp4"])
        }
    }

    @Test func eventStreamEndCarriesTheNextCursor() async throws {
        let app = ServerFixture.application(try ServerFixture.replaying())
        try await app.test(.router) { client in
            let response = try await client.execute(
                uri: "/v1/resolve?q=\(encoded("!giphy cats"))", method: .get, headers: [.accept: "text/event-stream"])
            let events = response.text.components(separatedBy: "\n\n").filter { !$0.isEmpty }
            #expect(events.last?.hasPrefix("event: end\n") == true)
            let end = try #require(events.last?.split(separator: "\n").last.map { String($0.dropFirst("data: ".count)) })
            let object = try #require(try JSONSerialization.jsonObject(with: Data(end.utf8)) as? [String: Any])
            #expect(object["next"] as? String != nil, "\(end)")
        }
    }

    @Test(arguments: [
        ("/v1/resolve", 400, "empty-query"),
        ("/v1/resolve?q=", 400, "empty-query"),
        ("/v1/resolve?q=\(encoded("!giphy cats"))&cursor=bogus", 400, "invalid-cursor"),
        ("/v1/resolve?q=\(encoded("!giphy cats"))&limit=0", 400, "invalid-limit"),
        ("/v1/resolve?q=\(encoded("!giphy cats"))&limit=many", 400, "invalid-limit"),
        ("/v1/resolve?q=\(encoded("file:///etc/passwd"))", 400, "unsupported-scheme"),
        ("/v1/resolve?q=\(encoded("/etc/passwd"))", 400, "unsupported-scheme"),
        ("/v1/resolve?q=\(encoded("http://exa mple.com/"))", 400, "invalid-url"),
        ("/v1/resolve?q=\(encoded("!nosuchengine cats"))", 400, "unknown-engine"),
        ("/v1/resolve?q=\(encoded("https://unrecorded.example/page"))", 404, "no-recorded-entry"),
        ("/v1/nothing-here", 404, "not-found"),
        ("/v1/resolve?q=" + String(repeating: "a", count: 9000), 413, "url-too-long"),
    ])
    func badInputIsAJSONErrorWithItsStatus(uri: String, status: Int, code: String) async throws {
        let app = ServerFixture.application(try ServerFixture.replaying())
        try await app.test(.router) { client in
            for accept in ["application/json", "application/x-ndjson"] {
                let response = try await client.execute(uri: uri, method: .get, headers: [.accept: accept])
                #expect(Int(response.status.code) == status, "\(uri): \(response.text)")
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
                #expect(try response.errorCode() == code, "\(uri): \(response.text)")
                let message = try #require((try response.json()["error"] as? [String: Any])?["message"] as? String)
                #expect(!message.isEmpty && !message.contains("Error(") && !message.contains("TrawlServer."), "\(message)")
            }
        }
    }

    @Test func wrongMethodIsAJSONError() async throws {
        let app = ServerFixture.application(try ServerFixture.replaying())
        try await app.test(.router) { client in
            let response = try await client.execute(uri: "/v1/resolve?q=x", method: .delete)
            #expect(response.status.code >= 400 && response.status.code < 500)
            #expect(try response.errorCode() != nil, "\(response.text)")
        }
    }
}
