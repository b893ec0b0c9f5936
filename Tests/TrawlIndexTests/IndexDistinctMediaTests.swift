import Foundation
import GRDB
import Testing
import TrawlCore
import TrawlTesting

@testable import TrawlIndex

/// One media found on several pages is one entry per page in the index, and one result in a
/// search: totals, pages and facets count distinct media (by canonical URL).
@Suite("Local index: a media on several pages is one result")
struct IndexDistinctMediaTests {
    @Test("The same media on six pages is one result, counted once, showing the page it was last indexed on")
    func sameMediaOnSixPages() async throws {
        let index = try MediaIndex(path: temporaryIndexPath())
        for n in 0..<6 {
            try await index.apply(
                extraction(
                    page: "https://giphy.com/gifs/cats-\(n)",
                    [
                        media("https://media.giphy.com/cat.gif", title: "Cat typing")
                    ]), now: Double(1000 + n))
        }
        let cats = try await index.search("!local cat")
        #expect(cats.total == 1)
        #expect(cats.media.map(\.url) == ["https://media.giphy.com/cat.gif"])
        #expect(cats.media.first?.page == "https://giphy.com/gifs/cats-5")
        #expect(cats.next == nil)
        #expect(cats.facets.site == [.init(value: "giphy", count: 1)])
        #expect(cats.facets.kind == [.init(value: "gif", count: 1)])
        #expect(try await index.search("!local kind:gif").total == 1)
        // Spellings of one URL (scheme, host case, HTML entities) are one media.
        try await index.apply(
            extraction(
                page: "https://tenor.com/view/cats",
                [
                    media("http://MEDIA.giphy.com/cat.gif", title: "Cat typing"),
                    media("https://media.giphy.com/a.gif?x=1&amp;y=2", title: "Cat sleeping"),
                ]), now: 1010)
        try await index.apply(
            extraction(
                page: "https://giphy.com/gifs/more",
                [
                    media("https://media.giphy.com/a.gif?x=1&y=2", title: "Cat sleeping")
                ]), now: 1011)
        let spelled = try await index.search("!local cat")
        #expect(spelled.total == 2)
        #expect(spelled.media.map(\.page) == ["https://giphy.com/gifs/more", "https://tenor.com/view/cats"])
        // A page resolved again enters anew: it is the media's latest page.
        try await index.apply(
            extraction(
                page: "https://giphy.com/gifs/cats-2",
                [
                    media("https://media.giphy.com/cat.gif", title: "Cat typing")
                ]), now: 1020)
        let again = try await index.search("!local typing")
        #expect(again.total == 1)
        #expect(again.media.map(\.page) == ["https://giphy.com/gifs/cats-2"])
    }

    @Test("Thirty media each on three pages page by ten: three pages of distinct media, then no next")
    func pagesOfDistinctMedia() async throws {
        let index = try MediaIndex(path: temporaryIndexPath())
        // Written the writer's way (straight into the index), one group per page.
        for pageNumber in 0..<3 {
            let found = (0..<30).map { media("https://media.tenor.com/\($0).gif", title: "cat number \($0)" + String(repeating: " padding", count: $0 % 4)) }
            try await index.store(PageUpdate.updates(for: extraction(page: "https://tenor.com/view/cats-\(pageNumber)", found)), now: Double(pageNumber))
        }
        var seen: [String] = []
        var pagination = Pagination.start
        var pages = 0
        while pages < 10 {
            let page = try await index.search("cat", pagination: pagination, limit: 10)
            #expect(page.total == 30)
            #expect(page.media.count == 10)
            #expect(page.media.allSatisfy { $0.page == "https://tenor.com/view/cats-2" })
            seen += page.media.map(\.url)
            pages += 1
            guard let next = page.next else { break }
            pagination = next
        }
        #expect(pages == 3)
        #expect(seen.count == 30)
        #expect(Set(seen).count == 30)
        // Offsets count distinct media too, and land where the cursors did.
        #expect(try await index.search("cat", pagination: .offset(10), limit: 10).media.map(\.url) == Array(seen[10..<20]))
        let last = try await index.search("cat", pagination: .offset(20), limit: 10)
        #expect(last.media.map(\.url) == Array(seen[20..<30]))
        #expect(last.next == nil)
        // Without words the same: everything, newest first, each once.
        let everything = try await index.search("site:tenor", limit: 25)
        #expect(everything.total == 30)
        #expect(Set(everything.media.map(\.url)).count == 25)
    }

    @Test("Facets count distinct media; a filter shows a media by the newest page it allows")
    func facetsCountDistinct() async throws {
        let index = try MediaIndex(path: temporaryIndexPath())
        // The otter on three giphy pages and a tenor page, the heron on one giphy page.
        for n in 0..<3 {
            try await index.apply(
                extraction(
                    page: "https://giphy.com/gifs/otter-\(n)",
                    [
                        media("https://media.example.net/otter.gif", title: "Otter swimming")
                    ]), now: Double(1000 + n))
        }
        try await index.apply(
            extraction(
                page: "https://tenor.com/view/otter",
                [
                    media("https://media.example.net/otter.gif", title: "Otter swimming")
                ]), now: 1003)
        try await index.apply(
            extraction(
                page: "https://giphy.com/gifs/heron",
                [
                    media("https://media.example.net/heron.mp4", title: "Heron swimming", kind: .mp4, width: 1280, height: 720)
                ]), now: 1004)

        let swimming = try await index.search("!local swimming")
        #expect(swimming.total == 2)
        #expect(swimming.media.count == 2)
        // A media found on two sites counts once under each.
        #expect(swimming.facets.site == [.init(value: "giphy", count: 2), .init(value: "tenor", count: 1)])
        #expect(swimming.facets.kind == [.init(value: "gif", count: 1), .init(value: "mp4", count: 1)])
        #expect(swimming.facets.size == [.init(value: "large", count: 1), .init(value: "small", count: 1)])

        let onGiphy = try await index.search("!local swimming site:giphy")
        #expect(onGiphy.total == 2)
        #expect(Set(onGiphy.media.map(\.page)) == ["https://giphy.com/gifs/otter-2", "https://giphy.com/gifs/heron"])
        #expect(onGiphy.facets.kind == [.init(value: "gif", count: 1), .init(value: "mp4", count: 1)])
        #expect(onGiphy.facets.site == [.init(value: "giphy", count: 2), .init(value: "tenor", count: 1)])

        let gifs = try await index.search("!local swimming kind:gif")
        #expect(gifs.total == 1)
        #expect(gifs.media.map(\.page) == ["https://tenor.com/view/otter"])
        #expect(gifs.facets.site == [.init(value: "giphy", count: 1), .init(value: "tenor", count: 1)])
        #expect(gifs.facets.kind == [.init(value: "gif", count: 1), .init(value: "mp4", count: 1)])
    }

    @Test("A fourth-version file is upgraded: its media, and the updates it left queued, count once")
    func upgradesVersionFour() async throws {
        let path = try await indexFile(migratedUpTo: "v4-fts-per-transaction") { db in
            for (page, url) in [(1, "https://media.giphy.com/cat.gif"), (2, "http://MEDIA.GIPHY.COM/cat.gif"), (3, "https://media.giphy.com/cat.gif")] {
                try db.execute(
                    sql: "INSERT INTO page (id, url, site, indexedAt) VALUES (?, ?, 'giphy', 5)",
                    arguments: [page, "https://giphy.com/gifs/cats-\(page)"])
                let stored = media(url, title: "Cat typing", page: "https://giphy.com/gifs/cats-\(page)")
                try db.execute(
                    sql: """
                        INSERT INTO media (pageID, url, kind, sizeClass, site, pageURL, title, json)
                        VALUES (?, ?, 'gif', 'small', 'giphy', ?, 'Cat typing', ?)
                        """, arguments: [page, url, "https://giphy.com/gifs/cats-\(page)", Data(MediaRecord.encode(stored))])
            }
            let dog = media("https://media.giphy.com/dog.gif", title: "Dog typing", page: "https://giphy.com/gifs/dogs")
            try db.execute(sql: "INSERT INTO page (id, url, site, indexedAt) VALUES (4, 'https://giphy.com/gifs/dogs', 'giphy', 5)")
            try db.execute(
                sql: """
                    INSERT INTO media (pageID, url, kind, sizeClass, site, pageURL, title, json)
                    VALUES (4, ?, 'gif', 'small', 'giphy', 'https://giphy.com/gifs/dogs', 'Dog typing', ?)
                    """, arguments: [dog.url, Data(MediaRecord.encode(dog))])
            try IndexSchema.indexPendingRows(db)
            // An update that version left queued: the cat once more, on a page of its own.
            let queued = media("https://media.giphy.com/cat.gif", title: "Cat typing", page: "https://tenor.com/view/cats")
            try db.execute(sql: "INSERT INTO pending (page, mode, version, queuedAt) VALUES ('https://tenor.com/view/cats', 'replace', 1, 6)")
            try db.execute(
                sql: """
                    INSERT INTO pending_media (page, url, position, kind, sizeClass, site, pageURL, title, json)
                    VALUES ('https://tenor.com/view/cats', ?, 0, 'gif', 'small', 'tenor', 'https://tenor.com/view/cats', 'Cat typing', ?)
                    """, arguments: [queued.url, Data(MediaRecord.encode(queued))])
        }
        let index = try MediaIndex(path: path)
        let before = try await index.search("!local typing")
        #expect(before.total == 2)
        // Equal scores: the newest first (the dog's row, then the cat's newest, page 3).
        #expect(before.media.map(\.page) == ["https://giphy.com/gifs/dogs", "https://giphy.com/gifs/cats-3"])
        #expect(before.facets.site == [.init(value: "giphy", count: 2)])

        try await index.drainPending(now: 10)
        let cats = try await index.search("!local cat")
        #expect(cats.total == 1)
        #expect(cats.media.map(\.page) == ["https://tenor.com/view/cats"])
        #expect(cats.facets.site == [.init(value: "giphy", count: 1), .init(value: "tenor", count: 1)])
        #expect(try await index.search("!local typing").total == 2)
        #expect(try await index.checkIntegrity())
        // An update that names no key (an older Trawl's statement) keeps the entry's key.
        try await index.write("an older writer's update") { db in
            try db.execute(sql: "UPDATE media SET kind = 'mp4' WHERE pageID IN (1, 2)")
        }
        let updated = try await index.search("!local cat")
        #expect(updated.total == 1)
        #expect(updated.facets.kind == [.init(value: "gif", count: 1), .init(value: "mp4", count: 1)])

        // A row written without a key (by an older Trawl sharing the file) is a media of its own.
        try await index.write("an older writer's row") { db in
            let stored = media("https://media.giphy.com/cat.gif", title: "Cat typing", page: "https://giphy.com/gifs/dogs")
            try db.execute(
                sql: """
                    INSERT INTO media (pageID, url, kind, sizeClass, site, pageURL, title, json)
                    VALUES (4, ?, 'gif', 'small', 'giphy', 'https://giphy.com/gifs/dogs', 'Cat typing', ?)
                    """, arguments: [stored.url, Data(MediaRecord.encode(stored))])
        }
        #expect(try await index.search("!local cat").total == 2)
        #expect(try await index.search("!local typing").media.count == 3)
    }

    @Test("The search's key table finds every key again, hashes and negated ids alike, and keeps their values")
    func keyTable() {
        var generator = SplitMix64(seed: 7)
        let hashes = (0..<2_500).map { _ in Int64.random(in: 0...Int64.max, using: &generator) }
        let keys = hashes + (1...2_500).map { -Int64($0) }
        var table = MediaKeyTable(capacity: keys.count)
        for (n, key) in keys.enumerated() {
            let (slot, isNew) = table.slot(for: key)
            #expect(isNew)
            table.setValue(Int64(n), at: slot)
        }
        var found = 0
        for (n, key) in keys.enumerated() {
            let (slot, isNew) = table.slot(for: key)
            if !isNew, table.values[slot] == Int64(n) { found += 1 }
        }
        #expect(found == keys.count)
        var sum: Int64 = 0
        table.forEachValue { sum += $0 }
        #expect(sum == Int64(keys.count * (keys.count - 1) / 2))
        // Spellings of one URL share a key; another URL has its own.
        #expect(MediaKey.of("//media.giphy.com/a.gif?x=1&amp;y=2") == MediaKey.of("https://MEDIA.giphy.com/a.gif?x=1&y=2"))
        #expect(MediaKey.of("https://media.giphy.com/a.gif") != MediaKey.of("https://media.giphy.com/b.gif"))
        #expect(keys.allSatisfy { $0 != Int64.min } && hashes.allSatisfy { $0 >= 0 })
        #expect(MediaKey.of("https://media.giphy.com/a.gif") >= 0)
    }
}
