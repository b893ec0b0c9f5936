import Foundation
import Testing
import Trawl
import TrawlCore
import TrawlFetch
import TrawlRecordings
import TrawlSmoke
import TrawlTesting

/// `trawl smoke --deny-private`: the live case goes through the address guard like any fetch.
/// Giphy is answered by a loopback server (`connectTo`), which the guard refuses unless a rule
/// opens it.
@Suite("Smoke runs under the address guard", .timeLimit(.minutes(5)))
struct SmokeAddressGuardTests {
    func run(_ policy: AddressPolicy) async throws -> (SmokeResult, requests: Int) {
        let live = LiveCaseTests()
        let folder = try live.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = try live.page("giphy/gif-page-dancing-cat")
        let server = try LoopbackServer { _ in .html(page) }
        defer { server.shutdown() }
        var options = SmokeOptions()
        options.plainHTTP = true
        options.connectTo = ["::127.0.0.1:\(server.port)"]
        options.timeout = .seconds(20)
        options.addressPolicy = policy
        let results = try await SmokeRunner(options: options).run(recordings: folder)
        return (try #require(results.first, "the live case ran"), server.requests.count)
    }

    @Test func aRefusedSiteFailsItsCaseNamingTheHost() async throws {
        let (refused, requests) = try await run(.denyPrivate)
        #expect(refused.status == .fail, "\(refused.status) \(refused.reasons)")
        #expect(refused.reasons.contains { $0.contains("'giphy.com' is not a public address") }, "\(refused.reasons)")
        #expect(requests == 0)
        let (opened, openedRequests) = try await run(.denyPrivate.allowing(try AddressRange(parsing: "127.0.0.1/32")))
        #expect(opened.status == .pass, "\(opened.reasons)")
        #expect(openedRequests > 0)
    }
}
