import Foundation
import GRDB
import Testing
import TrawlCore

@testable import TrawlIndex

/// The narrow `media_cell` table that facets and filters read, and the migration that made it.
@Suite("Index schema")
struct IndexSchemaTests {
    @Test("A first-version index file is upgraded in place: its media keep their facets, matches and highlights")
    func upgradesVersionOne() async throws {
        // The file as the first version left it: its migration only, rows written by its triggers.
        let path = try await indexFile(migratedUpTo: "v1-index") { db in
            try db.execute(sql: "INSERT INTO page (id, url, site, indexedAt) VALUES (1, 'https://giphy.com/a', 'giphy', 5)")
            for (id, kind, size, title) in [(1, "gif", "small", "Cat typing"), (2, "mp4", "large", "Cat sleeping"), (3, "gif", "small", "Dog")] {
                let stored = media("https://media.giphy.com/\(id)", title: title, page: "https://giphy.com/a")
                try db.execute(
                    sql: """
                        INSERT INTO media (id, pageID, url, kind, sizeClass, site, pageURL, title, json)
                        VALUES (?, 1, ?, ?, ?, 'giphy', 'https://giphy.com/a', ?, ?)
                        """, arguments: [id, stored.url, kind, size, title, try JSONEncoder().encode(stored)])
            }
        }
        let index = try MediaIndex(path: path)
        let cats = try await index.search("!local cat")
        #expect(cats.total == 2)
        #expect(cats.facets.kind == [.init(value: "gif", count: 1), .init(value: "mp4", count: 1)])
        #expect(cats.media.allSatisfy { $0.highlight?.contains("<mark>Cat</mark>") == true })
        let small = try await index.search("!local cat size:small")
        #expect(small.media.map(\.title) == ["Cat typing"])
        #expect(try await index.search("!local cat*").total == 2)
        #expect(try await index.checkIntegrity())
        #expect(try await index.stats().facets.kind == [.init(value: "gif", count: 2), .init(value: "mp4", count: 1)])
    }

    @Test("A media whose kind or size changes moves to its new cell; a pruned page leaves the counts")
    func cellsFollowUpdatesAndDeletes() async throws {
        let index = try await sampleIndex()
        // A partial update of one media: kind and size change in place (the UPDATE trigger).
        try await index.apply(
            extraction(
                page: "https://giphy.com/gifs/cat-typing",
                [
                    media("https://media.giphy.com/1.gif", title: "Cat typing on a keyboard", kind: .webp, width: 1080, height: 1080)
                ], complete: false))
        let cats = try await index.search("!local cat")
        #expect(cats.total == 4)
        #expect(cats.facets.kind == [.init(value: "mp4", count: 2), .init(value: "webp", count: 2)])
        #expect(try await index.search("!local cat kind:webp size:large").media.map(\.url) == ["https://media.giphy.com/1.gif"])
        #expect(try await index.search("!local kind:gif").total == 1)

        try await index.prune(indexedBefore: Date(timeIntervalSince1970: 2000))
        #expect(try await index.search("!local kind:webp").total == 0)
        #expect(try await index.stats().facets.site.isEmpty)
        let cells = try await index.read("counting cells") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM media_cell") ?? -1 }
        #expect(cells == 0)
    }

    @Test("A second-version index is upgraded in place: kind and size leave the full-text index, searches and highlights stay")
    func upgradesVersionTwo() async throws {
        // The file as the second version left it: kind and size class were FTS5 columns.
        let path = try await indexFile(migratedUpTo: "v2-lean-search") { db in
            try db.execute(sql: "INSERT INTO page (id, url, site, indexedAt) VALUES (1, 'https://giphy.com/gifs/funny-animals', 'giphy', 5)")
            for (id, kind, size, title) in [(1, "gif", "small", "Otter typing"), (2, "mp4", "large", "Otter sleeping"), (3, "webp", "small", "Heron")] {
                let stored = media("https://media.giphy.com/\(id)", title: title, page: "https://giphy.com/gifs/funny-animals")
                try db.execute(
                    sql: """
                        INSERT INTO media (id, pageID, url, kind, sizeClass, site, pageURL, title, json)
                        VALUES (?, 1, ?, ?, ?, 'giphy', 'https://giphy.com/gifs/funny-animals', ?, ?)
                        """, arguments: [id, stored.url, kind, size, title, Data(MediaRecord.encode(stored))])
            }
            let columns = try Int.fetchOne(db, sql: "SELECT count(*) FROM pragma_table_info('media_fts')")
            #expect(columns == 7)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM media_fts WHERE media_fts MATCH 'mp4'") == 1)
        }
        let index = try MediaIndex(path: path)
        let columns = try await index.read("reading the FTS columns") { db in
            try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('media_fts')")
        }
        #expect(columns == ["title", "caption", "tags", "site", "pageURL"])
        // Kind and size are filters and facets now, not words.
        #expect(try await index.search("!local mp4").total == 0)
        #expect(try await index.search("!local sma*").total == 0)
        #expect(try await index.search("!local kind:mp4").media.map(\.title) == ["Otter sleeping"])
        // Titles, sites and page URL words still match, ranked and highlighted, with facets.
        let otters = try await index.search("!local otter")
        #expect(otters.total == 2)
        #expect(otters.facets.size == [.init(value: "large", count: 1), .init(value: "small", count: 1)])
        #expect(otters.media.allSatisfy { $0.highlight?.contains("<mark>Otter</mark>") == true })
        #expect(try await index.search("!local funny").total == 3)
        #expect(try await index.search("!local giphy her*").media.map(\.title) == ["Heron"])
        // The triggers were made anew: an update and a delete keep FTS5 and the cells in step.
        try await index.apply(
            extraction(
                page: "https://giphy.com/gifs/funny-animals",
                [
                    media("https://media.giphy.com/2", title: "Otter swimming", kind: .mp4, width: 1280, height: 720)
                ]))
        #expect(try await index.titles("otter") == ["Otter swimming"])
        #expect(try await index.search("!local heron").total == 0)
        #expect(try await index.stats().facets.kind == [.init(value: "mp4", count: 1)])
        #expect(try await index.checkIntegrity())
    }
}
