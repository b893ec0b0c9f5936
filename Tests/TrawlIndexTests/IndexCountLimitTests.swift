import Foundation
import Testing
import TrawlCore

@testable import TrawlIndex

/// Searches consider at most `countLimit` matches, the newest: beyond it `total` and the facets
/// are lower bounds and say so.
@Suite("Local index count limit")
struct IndexCountLimitTests {
    @Test("More matches than the limit: the newest are counted, faceted and ranked, and the total says 'at least'")
    func capped() async throws {
        let index = try await sampleIndex()
        // "cat" matches 4 media (ids 1, 2, 4, 5 in the order indexed); the newest 3 are 5, 4, 2.
        let exact = try await index.search(LocalQuery(parsing: "cat"), countLimit: nil)
        #expect(exact.total == 4)
        #expect(!exact.totalIsLowerBound)

        let capped = try await index.search(LocalQuery(parsing: "cat"), countLimit: 3)
        #expect(capped.totalIsLowerBound)
        #expect(capped.total == 3)
        #expect(capped.media.count == 3)
        #expect(capped.facets.site.reduce(0) { $0 + $1.count } == 3)
        // The oldest match (the first Giphy media) is the one left out.
        #expect(!capped.media.map(\.url).contains("https://media.giphy.com/1.gif"))

        // Exactly as many matches as the limit: exact, not a lower bound.
        let atLimit = try await index.search(LocalQuery(parsing: "cat"), countLimit: 4)
        #expect(!atLimit.totalIsLowerBound)
        #expect(atLimit.total == 4)
        #expect(Set(atLimit.media.map(\.url)) == Set(exact.media.map(\.url)))
    }

    @Test("Filters and pages work within the considered matches")
    func filtersAndPagesWithinTheLimit() async throws {
        let index = try await sampleIndex()
        let giphy = try await index.search(LocalQuery(parsing: "cat site:giphy"), countLimit: 3)
        #expect(giphy.totalIsLowerBound)
        #expect(giphy.media.map(\.url) == ["https://media.giphy.com/1.mp4"])
        #expect(giphy.total == 1)
        // Disjunctive facets still count the other sites among the considered matches.
        #expect(Set(giphy.facets.site.map(\.value)) == ["giphy", "tenor", "example"])

        var seen: [String] = []
        var pagination = Pagination.start
        while true {
            let page = try await index.search(LocalQuery(parsing: "cat"), pagination: pagination, limit: 1, countLimit: 3)
            seen += page.media.map(\.url)
            guard let next = page.next else { break }
            pagination = next
        }
        #expect(seen.count == 3)
        #expect(Set(seen).count == 3)
    }

    @Test("Without words, the newest media are considered")
    func noWords() async throws {
        let index = try await sampleIndex()
        let all = try await index.search(LocalQuery(parsing: "site:giphy"), countLimit: 2)
        #expect(all.totalIsLowerBound)
        #expect(try await index.search(LocalQuery(parsing: "site:giphy")).totalIsLowerBound == false)
        #expect(try await index.search("site:giphy").total == 2)
    }
}
