import Foundation
import GRDB
import Testing
import TrawlCore

@testable import TrawlIndex

/// New media reach FTS5 at the end of their transaction (`media_fts_pending`, migration
/// `v4-fts-per-transaction`): rows changed or removed before that end, groups written straight
/// by the writer, files from the previous schema and rows noted by a writer that never moved them.
@Suite("Index rows moved into FTS5 per transaction")
struct IndexPendingRowsTests {
    @Test("A row inserted, then updated or deleted in the same transaction, is in FTS5 once, as it ended")
    func changedBeforeTheFlush() async throws {
        let index = try MediaIndex(path: temporaryIndexPath())
        try await index.write("a transaction that changes its own new rows") { db in
            try db.execute(sql: "INSERT INTO page (id, url, site, indexedAt) VALUES (1, 'https://a.test/p', 'a', 1)")
            for (id, title) in [(1, "first draft"), (2, "doomed row"), (3, "steady row")] {
                let stored = media("https://a.test/\(id).gif", title: title, page: "https://a.test/p")
                try db.execute(
                    sql: """
                        INSERT INTO media (id, pageID, url, kind, sizeClass, site, pageURL, title, json)
                        VALUES (?, 1, ?, 'gif', 'small', 'a', 'https://a.test/p', ?, ?)
                        """, arguments: [id, stored.url, title, Data(MediaRecord.encode(stored))])
            }
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM media_fts_pending") == 3)
            let final = media("https://a.test/1.gif", title: "final version", kind: .mp4, page: "https://a.test/p")
            try db.execute(
                sql: "UPDATE media SET title = 'final version', kind = 'mp4', json = ? WHERE id = 1",
                arguments: [Data(MediaRecord.encode(final))])
            try db.execute(sql: "DELETE FROM media WHERE id = 2")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM media_fts_pending") == 2)
        }
        let pending = try await index.read("counting notes") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM media_fts_pending") }
        #expect(pending == 0)
        #expect(try await index.checkIntegrity())
        let counts = try await index.read("counting FTS5 matches") { db in
            try ["final", "first", "doomed", "steady", "row"].map { word in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM media_fts WHERE media_fts MATCH ?", arguments: [word]) ?? -1
            }
        }
        #expect(counts == [1, 0, 0, 1, 1])
        // The cell trigger still ran for the update.
        #expect(try await index.search("!local final kind:mp4").media.map(\.url) == ["https://a.test/1.gif"])

        // Once committed, a row is FTS5's: a later update and delete go through the triggers.
        try await index.write("changing committed rows") { db in
            let renamed = media("https://a.test/1.gif", title: "renamed again", kind: .mp4, page: "https://a.test/p")
            try db.execute(sql: "UPDATE media SET title = 'renamed again', json = ? WHERE id = 1", arguments: [Data(MediaRecord.encode(renamed))])
            try db.execute(sql: "DELETE FROM media WHERE id = 3")
        }
        #expect(try await index.titles("renamed") == ["renamed again"])
        #expect(try await index.titles("steady OR final") == [])
        #expect(try await index.checkIntegrity())
    }

    @Test("A group written straight into the index, with a page listing one URL twice and a page replaced, is searchable and whole")
    func writerGroups() async throws {
        let index = try MediaIndex(path: temporaryIndexPath())
        let twice = extraction(
            page: "https://a.test/twice",
            [
                media("https://a.test/1.gif", title: "otter early"),
                media("https://a.test/1.gif", title: "otter late"),
                media("https://a.test/2.gif", title: "heron"),
            ])
        try await index.store(PageUpdate.updates(for: twice), now: 1)
        #expect(try await index.titles("otter") == ["otter late"])
        try await index.store(
            PageUpdate.updates(
                for: extraction(
                    page: "https://a.test/twice",
                    [
                        media("https://a.test/3.gif", title: "otter again")
                    ])) + PageUpdate.updates(for: extraction(page: "https://a.test/other", [media("https://a.test/4.gif", title: "heron two")])), now: 2)
        #expect(try await index.titles("otter") == ["otter again"])
        #expect(try await index.titles("heron") == ["heron two"])
        #expect(try await index.checkIntegrity())
    }

    @Test("A third-version file is upgraded: its rows stay searchable, new rows go in at commit")
    func upgradesVersionThree() async throws {
        let path = try await indexFile(migratedUpTo: "v3-fts-without-facets") { db in
            try db.execute(sql: "INSERT INTO page (id, url, site, indexedAt) VALUES (1, 'https://giphy.com/gifs/otters', 'giphy', 5)")
            for (id, title) in [(1, "Otter typing"), (2, "Otter sleeping")] {
                let stored = media("https://media.giphy.com/\(id)", title: title, page: "https://giphy.com/gifs/otters")
                try db.execute(
                    sql: """
                        INSERT INTO media (id, pageID, url, kind, sizeClass, site, pageURL, title, json)
                        VALUES (?, 1, ?, 'gif', 'small', 'giphy', 'https://giphy.com/gifs/otters', ?, ?)
                        """, arguments: [id, stored.url, title, Data(MediaRecord.encode(stored))])
            }
        }
        let index = try MediaIndex(path: path)
        #expect(try await index.search("!local otter").total == 2)
        try await index.apply(
            extraction(
                page: "https://giphy.com/gifs/otters",
                [
                    media("https://media.giphy.com/2", title: "Otter swimming"),
                    media("https://media.giphy.com/3", title: "Otter diving"),
                ]))
        #expect(Set(try await index.titles("otter")) == ["Otter swimming", "Otter diving"])
        #expect(try await index.checkIntegrity())
    }

    @Test("Rows a writer noted and never moved (an older Trawl on the same file) go in at the next write")
    func strandedNotes() async throws {
        let path = temporaryIndexPath()
        let index = try MediaIndex(path: path)
        try await index.apply(extraction(page: "https://a.test/p", [media("https://a.test/1.gif", title: "stranded otter")]))
        // A writer that only ran the triggers: the row is noted, FTS5 does not have it.
        let queue = try DatabaseQueue(path: path)
        let stranded = media("https://a.test/2.gif", title: "stranded heron", page: "https://a.test/p")
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO media (pageID, url, kind, sizeClass, site, pageURL, title, json)
                    SELECT id, 'https://a.test/2.gif', 'gif', 'small', site, url, 'stranded heron', ? FROM page
                    """, arguments: [Data(MediaRecord.encode(stranded))])
        }
        try queue.close()
        #expect(try await index.titles("heron") == [])
        try await index.apply(extraction(page: "https://b.test/q", [media("https://b.test/1.gif", title: "fresh heron")]))
        #expect(Set(try await index.titles("heron")) == ["stranded heron", "fresh heron"])
        #expect(try await index.checkIntegrity())
    }
}
