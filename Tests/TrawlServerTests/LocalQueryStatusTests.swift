import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import Trawl
import TrawlServer

/// A `!local` query the index cannot read is the client's mistake: 400 `invalid-query`, and
/// no answer shows the index's path or SQL.
@Suite("trawl serve: !local queries that cannot be read")
struct LocalQueryStatusTests {
    @Test func anUnreadableLocalQueryIsA400NamingNoPathOrSQL() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-serve-query-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: file) }
        let index = try MediaIndex(path: file.path)
        let server = try ServerFixture.replaying { $0.trawl.localIndex = index }
        try await ServerFixture.application(server).test(.router) { client in
            for query in ["!local \u{0}cat", "!local (cat", "!local cat OR"] {
                let answer = try await client.execute(uri: "/v1/resolve?q=\(encoded(query))", method: .get)
                #expect(answer.status == .badRequest, "\(query): \(answer.text)")
                let error = try #require(try answer.json()["error"] as? [String: Any], "\(answer.text)")
                #expect(error["code"] as? String == "invalid-query", "\(answer.text)")
                #expect(!answer.text.contains(file.path) && !answer.text.contains("SELECT") && !answer.text.contains("sqlite"), "\(answer.text)")
            }
            let grouped = try await client.execute(uri: "/v1/resolve?q=\(encoded("!local cat (zebra OR dog)"))", method: .get)
            #expect(grouped.status == .ok, "\(grouped.text)")
        }
    }
}
