import Foundation
import Testing
import TrawlCore

@testable import TrawlIndex

@Suite("Local index search")
struct IndexSearchTests {
    @Test("BM25 ranks title matches first; words side by side must all match")
    func ranking() async throws {
        let index = try await sampleIndex()
        let cats = try await index.titles("cat")
        #expect(Set(cats) == ["Cat typing on a keyboard", "Cat typing fast", "A cat and a dog", "Typewriter <sound> & cat"])
        #expect(try await index.titles("cat typing").sorted() == ["Cat typing fast", "Cat typing on a keyboard"])
        // The shorter title with the same words ranks higher (BM25's length normalisation).
        #expect(try await index.titles("cat typing").first == "Cat typing fast")
    }

    @Test("Phrases, prefixes and operators")
    func syntax() async throws {
        let index = try await sampleIndex()
        #expect(try await index.titles(#""typing fast""#) == ["Cat typing fast"])
        #expect(try await index.titles(#""fast typing""#) == [])
        #expect(Set(try await index.titles("typ*")) == ["Cat typing on a keyboard", "Cat typing fast", "Dog typing a letter", "Typewriter <sound> & cat"])
        #expect(Set(try await index.titles("dog NOT cat")) == ["Dog typing a letter"])
        #expect(Set(try await index.titles("(keyboard OR letter)")) == ["Cat typing on a keyboard", "Dog typing a letter"])
        // Page URLs and sites are indexed too.
        #expect(Set(try await index.titles("tenor")) == ["Dog typing a letter", "A cat and a dog"])
    }

    @Test("Filters narrow; each facet counts with the other filters only")
    func facets() async throws {
        let index = try await sampleIndex()
        let all = try await index.search("cat")
        #expect(all.total == 4)
        #expect(all.facets.site == [.init(value: "giphy", count: 2), .init(value: "example", count: 1), .init(value: "tenor", count: 1)])
        #expect(all.facets.kind == [.init(value: "mp4", count: 2), .init(value: "gif", count: 1), .init(value: "webp", count: 1)])

        let narrowed = try await index.search("cat site:giphy kind:mp4")
        #expect(narrowed.media.map(\.url) == ["https://media.giphy.com/1.mp4"])
        #expect(narrowed.total == 1)
        // Sites counted among mp4s, kinds among giphy's: what the other choices would give.
        #expect(narrowed.facets.site == [.init(value: "giphy", count: 1), .init(value: "tenor", count: 1)])
        #expect(narrowed.facets.kind == [.init(value: "gif", count: 1), .init(value: "mp4", count: 1)])
        #expect(narrowed.facets.size == [.init(value: "medium", count: 1)])

        #expect(try await index.titles("size:large") == ["Dog typing a letter"])
        #expect(try await index.titles("cat size:unknown") == ["A cat and a dog"])
        #expect(try await index.search("site:example.co.uk").total == 1)
    }

    @Test("Highlights mark the matched terms in the title, the rest escaped")
    func highlights() async throws {
        let index = try await sampleIndex()
        let page = try await index.search("cat typ*")
        let byTitle = Dictionary(uniqueKeysWithValues: page.media.map { ($0.title ?? "", $0.highlight) })
        #expect(byTitle["Cat typing fast"] == "<mark>Cat</mark> <mark>typing</mark> fast")
        #expect(byTitle["Typewriter <sound> & cat"] == "<mark>Typewriter</mark> &lt;sound&gt; &amp; <mark>cat</mark>")
        // Stored media come back whole: the page they were found on, their size.
        let typing = try #require(page.media.first { $0.title == "Cat typing fast" })
        #expect(typing.page == "https://giphy.com/gifs/cat-typing")
        #expect(typing.width == 480)
        // Without words nothing is marked.
        #expect(try await index.search("site:giphy").media.allSatisfy { $0.highlight == nil })
    }

    @Test("Offset and cursor pages cover every match once, with the total on each")
    func paging() async throws {
        let index = try MediaIndex(path: temporaryIndexPath())
        for pageNumber in 0..<7 {
            try await index.apply(
                extraction(
                    page: "https://giphy.com/gifs/\(pageNumber)",
                    (0..<5).map {
                        media(
                            "https://media.giphy.com/\(pageNumber)-\($0).gif",
                            title: "cat number \(pageNumber) \($0)" + String(repeating: " padding", count: $0))
                    }))
        }
        var seen: [String] = []
        var pagination = Pagination.start
        var pages = 0
        while true {
            let page = try await index.search("cat", pagination: pagination, limit: 8)
            #expect(page.total == 35)
            seen += page.media.map(\.url)
            pages += 1
            guard let next = page.next else { break }
            guard case .cursor = next else { Issue.record("next is not a cursor: \(next)"); break }
            pagination = next
        }
        #expect(pages == 5)
        #expect(seen.count == 35)
        #expect(Set(seen).count == 35)
        // An offset jumps to the same place the cursors reached.
        let third = try await index.search("cat", pagination: .offset(16), limit: 8)
        #expect(third.media.map(\.url) == Array(seen[16..<24]))
        #expect(try await index.search("cat", pagination: .offset(40)).media.isEmpty)
        // A cursor that is not the index's is a usage error naming the query.
        let error = await #expect(throws: IndexError.self) { try await index.search("cat", pagination: .cursor("nope")) }
        #expect(error?.code == .invalidQuery)
    }
}

@Suite("Local index captions and tags")
struct IndexCaptionTagsTests {
    @Test("Captions and tags are indexed and searchable, and come back whole with the media")
    func captionsAndTags() async throws {
        let index = try MediaIndex(path: temporaryIndexPath())
        var otter = media("https://media.tenor.com/o.gif", title: "Otter")
        otter.caption = "an otter swimming on its back"
        otter.tags = ["sea otter", "swim"]
        try await index.apply(extraction(page: "https://tenor.com/view/otter", [otter, media("https://media.tenor.com/d.gif", title: "Dog")]))
        let swimming = try await index.search("swimming")
        #expect(swimming.media.map(\.url) == ["https://media.tenor.com/o.gif"])
        #expect(swimming.media.first?.caption == "an otter swimming on its back")
        #expect(swimming.media.first?.tags == ["sea otter", "swim"])
        #expect(try await index.search("sea").media.map(\.url) == ["https://media.tenor.com/o.gif"])
        // A caption alone is enough to be found.
        var captioned = media("https://media.tenor.com/c.gif", title: "Cat")
        captioned.caption = "otter"
        try await index.apply(extraction(page: "https://tenor.com/view/cat", [captioned]))
        // (The dog is found too: its page URL, …/view/otter, is indexed.)
        let otters = try await index.search("otter").media
        #expect(Set(otters.map(\.url)) == ["https://media.tenor.com/o.gif", "https://media.tenor.com/c.gif", "https://media.tenor.com/d.gif"])
    }
}
