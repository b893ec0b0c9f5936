import Foundation
import GRDB
import Testing
import TrawlCore

@testable import TrawlIndex

@Suite("Local index consistency")
struct IndexConsistencyTests {
    @Test("Re-extracting a page replaces its entries: gone media leave, changed titles update")
    func replace() async throws {
        let index = try await sampleIndex()
        try await index.apply(
            extraction(
                page: "https://giphy.com/gifs/cat-typing",
                [
                    media("https://media.giphy.com/1.gif", title: "Kitten typing on a keyboard")
                ]))
        #expect(try await index.titles("kitten") == ["Kitten typing on a keyboard"])
        #expect(try await index.titles("fast") == [])
        #expect(try await index.search("site:giphy").total == 1)
        #expect(try await index.checkIntegrity())

        // A page that now has nothing leaves the index.
        try await index.apply(extraction(page: "https://giphy.com/gifs/cat-typing", []))
        #expect(try await index.search("site:giphy").total == 0)
        #expect(try await index.stats().pages == 2)
    }

    @Test("A resolution cut short adds what it found and removes nothing")
    func partial() async throws {
        let index = try await sampleIndex()
        try await index.apply(
            extraction(
                page: "https://tenor.com/view/dog",
                [
                    media("https://media.tenor.com/9.gif", title: "Dog typing again")
                ], complete: false))
        #expect(try await index.search("site:tenor").total == 3)
        // A failure with nothing found changes nothing.
        try await index.apply(extraction(page: "https://tenor.com/view/dog", [], complete: false))
        #expect(try await index.search("site:tenor").total == 3)
    }

    @Test("Search results update each result's page; !local results change nothing")
    func searchEngines() async throws {
        let index = try MediaIndex(path: temporaryIndexPath())
        let found = [
            media("https://media.giphy.com/a.gif", title: "cat one", page: "https://giphy.com/gifs/a"),
            media("https://media.giphy.com/b.gif", title: "cat two", page: "https://giphy.com/gifs/b"),
        ]
        try await index.apply(Extraction(request: Request("!giphy cat"), engine: "giphy", media: found, isComplete: true))
        #expect(try await index.stats().pages == 2)
        try await index.apply(
            Extraction(request: Request("!local cat"), engine: "local", media: [media("https://x.test/c.gif", title: "cat")], isComplete: true))
        #expect(try await index.stats().media == 2)
    }

    @Test("Pruning deletes old pages, and their media and full-text entries with them")
    func prune() async throws {
        let index = try MediaIndex(path: temporaryIndexPath())
        try await index.apply(extraction(page: "https://a.test/old", [media("https://a.test/1.gif", title: "old cat")]), now: 100)
        try await index.apply(extraction(page: "https://a.test/new", [media("https://a.test/2.gif", title: "new cat")]), now: 1000)
        let removed = try await index.prune(indexedBefore: Date(timeIntervalSince1970: 500))
        #expect(removed.pages == 1)
        #expect(removed.media == 1)
        #expect(try await index.titles("cat") == ["new cat"])
        #expect(try await index.checkIntegrity())
        try await index.rebuild()
        #expect(try await index.titles("cat") == ["new cat"])
    }

    @Test("Updates of a page coalesce in the queue: a full list wins, a partial one is laid over")
    func coalescing() async throws {
        let index = try MediaIndex(path: temporaryIndexPath())
        let page = "https://a.test/p"
        var updates = PageUpdate.updates(for: extraction(page: page, [media("https://a.test/1.gif", title: "one")]))
        updates += PageUpdate.updates(for: extraction(page: page, [media("https://a.test/2.gif", title: "two")], complete: false))
        try await index.enqueue(updates, now: 1)
        try await index.enqueue(PageUpdate.updates(for: extraction(page: page, [media("https://a.test/1.gif", title: "one again")], complete: false)), now: 2)
        #expect(try await index.pendingCount() == 1)
        try await index.drainPending(now: 3)
        #expect(try await index.pendingCount() == 0)
        #expect(Set(try await index.titles("one OR two")) == ["one again", "two"])

        try await index.enqueue(PageUpdate.updates(for: extraction(page: page, [media("https://a.test/9.gif", title: "nine")], complete: false)), now: 4)
        try await index.enqueue(PageUpdate.updates(for: extraction(page: page, [media("https://a.test/3.gif", title: "three")])), now: 5)
        try await index.drainPending(now: 6)
        #expect(try await index.titles("one OR two OR three OR nine") == ["three"])
    }

    @Test("Queued updates outlive the process that queued them and are applied once by the next")
    func durableQueue() async throws {
        let path = temporaryIndexPath()
        do {
            // A process that queued and died before applying.
            let first = try MediaIndex(path: path)
            try await first.enqueue(
                PageUpdate.updates(
                    for: extraction(
                        page: "https://a.test/p",
                        [
                            media("https://a.test/1.gif", title: "queued cat"), media("https://a.test/2.gif", title: "queued dog"),
                        ])), now: 1)
        }
        let second = try MediaIndex(path: path)
        #expect(try await second.pendingCount() == 1)
        #expect(try await second.stats().media == 0)
        let writer = IndexWriter(index: second)
        _ = await writer.close()
        #expect(try await second.pendingCount() == 0)
        #expect(try await second.stats().media == 2)
        // Applying again finds nothing to do: no media twice.
        try await second.drainPending(now: 2)
        #expect(try await second.stats().media == 2)
    }

    @Test("The writer takes extractions without waiting and has them in the index at close")
    func writer() async throws {
        let index = try MediaIndex(path: temporaryIndexPath())
        let writer = IndexWriter(index: index)
        for n in 0..<300 {
            writer.record(extraction(page: "https://a.test/\(n % 100)", [media("https://a.test/\(n % 100).gif", title: "cat \(n)")]))
        }
        let failures = await writer.close()
        #expect(failures.isEmpty)
        let stats = try await index.stats()
        #expect(stats.pages == 100)
        #expect(stats.media == 100)
        #expect(stats.pending == 0)
        // The last extraction of each page won (phrases: page URLs hold the numbers too).
        #expect(try await index.titles(#""cat 299""#) == ["cat 299"])
        #expect(try await index.titles(#""cat 99""#) == [])
        // After close, nothing more is taken.
        writer.record(extraction(page: "https://a.test/late", [media("https://a.test/late.gif", title: "late")]))
        #expect(try await index.stats().pages == 100)
    }

    @Test("A file of garbage is set aside with a warning and a new index starts")
    func garbage() async throws {
        let path = temporaryIndexPath()
        try FileManager.default.createDirectory(at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        try Data((0..<10_000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: path))
        let index = try MediaIndex(path: path)
        #expect(index.warnings.count == 1)
        #expect(index.warnings.first?.contains("not an SQLite database") == true)
        let aside = try FileManager.default.contentsOfDirectory(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        #expect(aside.contains { $0.hasPrefix("index.sqlite.corrupt-") })
        try await index.apply(extraction(page: "https://a.test/p", [media("https://a.test/1.gif", title: "fresh cat")]))
        #expect(try await index.titles("cat") == ["fresh cat"])
    }

    @Test("A file cut short is set aside with a warning and a new index starts")
    func truncated() async throws {
        let path = temporaryIndexPath()
        do {
            let index = try MediaIndex(path: path)
            for n in 0..<200 {
                try await index.apply(
                    extraction(page: "https://a.test/\(n)", [media("https://a.test/\(n).gif", title: "cat \(n) " + String(repeating: "word ", count: 50))]))
            }
            // Everything into the main file, so cutting it loses pages the header counts.
            try await index.pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber).intValue
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: UInt64(size / 2))
        try handle.close()
        let index = try MediaIndex(path: path)
        #expect(index.warnings.count == 1)
        #expect(index.warnings.first?.contains("cut short") == true)
        #expect(try await index.stats().media == 0)
        try await index.apply(extraction(page: "https://a.test/p", [media("https://a.test/1.gif", title: "fresh cat")]))
        #expect(try await index.titles("cat") == ["fresh cat"])
    }

    @Test("A query FTS5 refuses is an invalid-query error naming the query, without SQL text")
    func ftsSyntax() async throws {
        let index = try await sampleIndex()
        // Built by hand past the parser's checks, as a library caller could.
        var query = try LocalQuery(parsing: "!local cat")
        query.match = "\"cat\" AND"
        let error = await #expect(throws: IndexError.self) { try await index.search(query) }
        #expect(error?.code == .invalidQuery)
        #expect(error?.description.contains("!local cat") == true)
        #expect(error?.description.contains("fts5") == false)
        #expect(error?.description.contains("SELECT") == false)
    }

    @Test("A group goes straight into the index: a full list replaces the page, a partial one is laid over, an empty full list removes it")
    func storedGroups() async throws {
        let index = try MediaIndex(path: temporaryIndexPath())
        let page = "https://a.test/p"
        try await index.store(
            PageUpdate.updates(
                for: extraction(
                    page: page,
                    [
                        media("https://a.test/1.gif", title: "one"), media("https://a.test/2.gif", title: "two"),
                    ])), now: 1)
        try await index.store(PageUpdate.updates(for: extraction(page: page, [media("https://a.test/1.gif", title: "one again")], complete: false)), now: 2)
        #expect(Set(try await index.titles("one OR two")) == ["one again", "two"])
        try await index.store(PageUpdate.updates(for: extraction(page: page, [media("https://a.test/3.gif", title: "three")])), now: 3)
        #expect(try await index.titles("one OR two OR three") == ["three"])
        // Storing the same group twice changes nothing (a retried group after a failure).
        let again = PageUpdate.updates(for: extraction(page: page, [media("https://a.test/3.gif", title: "three")]))
        try await index.store(again, now: 4)
        #expect(try await index.stats().media == 1)
        try await index.store(PageUpdate.updates(for: extraction(page: page, [])), now: 5)
        #expect(try await index.stats().pages == 0)
        #expect(try await index.stats().pending == 0)
        #expect(try await index.checkIntegrity())
    }

    @Test("What an older process left queued is applied before the writer's newer group of the same page")
    func queuedBeforeStored() async throws {
        let path = temporaryIndexPath()
        do {
            let first = try MediaIndex(path: path)
            try await first.enqueue(PageUpdate.updates(for: extraction(page: "https://a.test/p", [media("https://a.test/1.gif", title: "old cat")])), now: 1)
        }
        let index = try MediaIndex(path: path)
        let writer = IndexWriter(index: index)
        writer.record(extraction(page: "https://a.test/p", [media("https://a.test/2.gif", title: "new cat")]))
        #expect(await writer.close().isEmpty)
        #expect(try await index.titles("cat") == ["new cat"])
        #expect(try await index.pendingCount() == 0)
    }

    @Test("A queued update of a media already in the index applies when its cell exists (no UNIQUE error)")
    func queuedUpdateOfIndexedMedia() async throws {
        // The apply path once upserted (`INSERT … ON CONFLICT DO UPDATE`): SQLite then runs the
        // UPDATE trigger's `INSERT OR IGNORE INTO cell` under the upsert's conflict handling, and
        // a media whose (site, kind, size) cell already existed failed with "UNIQUE constraint
        // failed: cell.site…", leaving the queue stuck on that page.
        let path = temporaryIndexPath()
        let page = "https://a.test/p"
        do {
            let first = try MediaIndex(path: path)
            try await first.apply(
                extraction(page: page, [media("https://a.test/1.gif", title: "old cat"), media("https://a.test/2.gif", title: "dog")]), now: 1)
            // An older Trawl queued a partial update of the same media, same kind and size, and died.
            try await first.enqueue(PageUpdate.updates(for: extraction(page: page, [media("https://a.test/1.gif", title: "new cat")], complete: false)), now: 2)
            try await first.enqueue(
                PageUpdate.updates(for: extraction(page: "https://a.test/q", [media("https://a.test/1.gif", title: "other cat")], complete: false)), now: 2)
        }
        let index = try MediaIndex(path: path)
        #expect(try await index.applyPending(now: 3) == 2)
        #expect(try await index.pendingCount() == 0)
        // Both entries are there; a search shows the media once, as its newest entry (page q).
        #expect(try await index.titles("cat") == ["other cat"])
        #expect(try await index.titles("new") == ["new cat"])
        #expect(try await index.titles("dog") == ["dog"])
        #expect(try await index.stats().media == 3)
        #expect(try await index.search("!local cat").facets.site == [.init(value: "a", count: 1)])
        #expect(try await index.checkIntegrity())
    }
}
