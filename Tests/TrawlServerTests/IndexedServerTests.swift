import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import Trawl
import TrawlServer
import TrawlTesting

/// `trawl serve` with a local index: what its resolves and batches find is indexed, and
/// `!local` (through `/v1/resolve` and the sessions) searches it.
@Suite("trawl serve and the local index", .timeLimit(.minutes(5)))
struct IndexedServerTests {
    @Test func whatTheServerFindsIsSearchableWithLocal() async throws {
        let site = try LoopbackServer { request in
            .html(
                "<html><head><title>Sleepy \(request.path.dropFirst()) otter</title><meta property=\"og:image\" content=\"https://media.test\(request.path).gif\"></head><body></body></html>"
            )
        }
        defer { site.shutdown() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-serve-index-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: file) }
        let index = try MediaIndex(path: file.path)
        let writer = IndexWriter(index: index)
        let server = try ServerFixture.live(site: site, hosts: ["a.test"]) { configuration in
            configuration.trawl.localIndex = index
            configuration.trawl.sink = writer
        }
        try await ServerFixture.application(server).test(.live) { client in
            // One page resolved, one through a batch.
            let resolved = try await client.execute(uri: "/v1/resolve?q=\(encoded("http://a.test/resolved"))", method: .get)
            #expect(resolved.status == .ok, "\(resolved.text)")
            let created = try await client.execute(uri: "/v1/batches", method: .post, body: ByteBuffer(string: "http://a.test/batched\n"))
            let id = try #require(try created.json()["id"] as? String)
            _ = try await BatchRouteTests.waitUntilFinished(client, id: id)

            // Index writes are batched off the request path: wait for both to land.
            var found: Set<String> = []
            try await waitUntil("both pages in the local index", interval: .milliseconds(20)) {
                let answer = try await client.execute(uri: "/v1/resolve?q=\(encoded("!local otter"))", method: .get)
                #expect(answer.status == .ok, "\(answer.text)")
                found = Set(((try answer.json()["media"] as? [[String: Any]]) ?? []).compactMap { $0["url"] as? String })
                return found.count >= 2
            }
            #expect(found == ["https://media.test/resolved.gif", "https://media.test/batched.gif"], "\(found)")

            // The facets and highlights come with it, as `trawl resolve --json` prints them.
            let answer = try await client.execute(uri: "/v1/resolve?q=\(encoded("!local sleepy"))", method: .get).json()
            let media = try #require(answer["media"] as? [[String: Any]])
            #expect(media.count == 2)
            #expect(media.allSatisfy { ($0["highlight"] as? String)?.contains("<mark>") == true }, "\(media)")
        }
        _ = await writer.close()
    }
}
