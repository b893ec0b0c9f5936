import Foundation
import Testing
import TrawlBatch
import TrawlQueue
import TrawlStore
import TrawlTesting

/// Claims on a real PostgreSQL, called directly.
@Suite("Queue claims")
struct ClaimTests {
    @Test("Claims of one job each go round the hosts: a host the claim did not take from keeps its place")
    func smallClaimsRotate() async throws {
        let fixture = try QueueFixture(hosts: ["a.test", "b.test", "c.test"]) { request in QueueFixture.page(request.path) }
        defer { fixture.server.shutdown() }
        try fixture.writeList((1...12).map { "http://\(["a", "b", "c"][$0 % 3]).test/p/\($0)" })
        let configuration = fixture.configuration(concurrency: 8, perHost: 2)
        let rules = ClaimRules(perHost: 2, delay: 0)
        let hosts = try await fixture.withStore { store in
            try await fixture.push(store, configuration: configuration)
            var hosts: [String] = []
            for n in 1...3 {
                let now = Date().timeIntervalSince1970 + Double(n)
                let jobs = try await store.claim(limit: 1, owner: "w", rules: rules, now: now, leaseUntil: now + 60)
                #expect(jobs.count == 1, "claim \(n) leased \(jobs.count) jobs")
                hosts += jobs.compactMap(\.host)
            }
            return hosts
        }
        #expect(hosts.sorted() == ["a.test", "b.test", "c.test"], "three claims took from \(hosts)")
    }
}
