public import Foundation
import GRDB
public import TrawlCore

/// The writer's path into the index: a group of page updates written straight into `page` and
/// `media` (and, by their triggers, the full-text index and the cell tables) in one transaction.
///
/// The transaction is what makes it safe: a process killed at any instant leaves a group either
/// wholly in the index or not at all (then it was still in the writer's memory, as before it
/// reached the on-disk queue), so no page is ever half-replaced and nothing is applied twice. Each
/// row is written once. The rows are prepared before the
/// transaction (``PreparedGroup``), and bound in place into statements prepared once per
/// connection (``InPlaceStatement``).
extension MediaIndex {
    /// Indexes `extractions` in one transaction, as an ``IndexWriter``'s flush does: for a caller
    /// that groups extractions itself (a bulk import, the index benchmark).
    public func index(_ extractions: [Extraction], now: Double = Date().timeIntervalSince1970) async throws {
        try await store(extractions.flatMap(PageUpdate.updates(for:)), now: now)
    }

    /// Folds the write-ahead log into the main file, so that the file's size is the index's.
    public func checkpoint() async throws {
        try await pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// Applies `updates` (already coalesced per page, in order) in one transaction.
    func store(_ updates: [PageUpdate], now: Double) async throws {
        guard !updates.isEmpty else { return }
        try await store(PreparedGroup(updates), now: now)
    }

    /// Applies a prepared group in one transaction.
    func store(_ group: PreparedGroup, now: Double) async throws {
        guard !group.pages.isEmpty else { return }
        try await write("indexing \(group.pages.count) page updates") { db in
            let statements = try StoreStatements(db)
            try group.bytes.withUnsafeBufferPointer { buffer in
                // Never empty: a prepared group starts with a byte of its own.
                guard let base = buffer.baseAddress else { return }
                for page in group.pages {
                    try Self.store(page, of: group, base: base, statements: statements, now: now)
                }
            }
        }
    }

    private static func store(
        _ page: PreparedGroup.Page, of group: PreparedGroup, base: UnsafePointer<UInt8>, statements: StoreStatements, now: Double
    ) throws {
        try statements.findPage.bindText(1, page.url, in: base)
        let existing = try statements.findPage.fetchInt64()
        if page.rows.isEmpty {
            // A full list with nothing in it: the page goes, and its media with it (cascade).
            if page.mode == .replace, let existing {
                try statements.deletePage.bind(1, existing)
                try statements.deletePage.run()
            }
            return
        }
        let pageID: Int64
        // Whether the page may hold a media of the update already (then update it, else insert).
        let mayHold: Bool
        if let existing {
            pageID = existing
            try statements.touchPage.bind(1, now)
            try statements.touchPage.bind(2, pageID)
            try statements.touchPage.run()
            if page.mode == .replace {
                try statements.clearPage.bind(1, pageID)
                try statements.clearPage.run()
            }
            mayHold = page.mode == .merge || !page.distinctURLs
        } else {
            try statements.insertPage.bindText(1, page.url, in: base)
            try statements.insertPage.bindText(2, page.site, in: base)
            try statements.insertPage.bind(3, now)
            try statements.insertPage.run()
            pageID = statements.db.lastInsertedRowID
            mayHold = !page.distinctURLs
        }
        for row in group.rows[page.rows] {
            if mayHold {
                // Update, else insert: not an upsert, whose conflict clause would override the
                // triggers' `INSERT OR IGNORE INTO cell` and fail on a cell that exists.
                let update = statements.updateMedia
                try update.bindText(1, row.kind, in: base)
                try update.bindText(2, row.sizeClass, in: base)
                try update.bindText(3, page.site, in: base)
                try update.bindText(4, page.url, in: base)
                try update.bindText(5, row.title, in: base)
                try update.bindText(6, row.caption, in: base)
                try update.bindText(7, row.tags, in: base)
                try update.bindBlob(8, row.record, in: base)
                try update.bind(9, row.urlKey)
                try update.bind(10, row.animated)
                try update.bind(11, row.durationSeconds)
                try update.bind(12, pageID)
                try update.bindText(13, row.url, in: base)
                try update.run()
                if statements.db.changesCount > 0 { continue }
            }
            let insert = statements.insertMedia
            try insert.bind(1, pageID)
            try insert.bindText(2, row.url, in: base)
            try insert.bindText(3, row.kind, in: base)
            try insert.bindText(4, row.sizeClass, in: base)
            try insert.bindText(5, page.site, in: base)
            try insert.bindText(6, page.url, in: base)
            try insert.bindText(7, row.title, in: base)
            try insert.bindText(8, row.caption, in: base)
            try insert.bindText(9, row.tags, in: base)
            try insert.bindBlob(10, row.record, in: base)
            try insert.bind(11, row.urlKey)
            try insert.bind(12, row.animated)
            try insert.bind(13, row.durationSeconds)
            try insert.run()
        }
    }
}

/// The statements `MediaIndex.store` runs per page and per media:
/// prepared once per connection (GRDB's statement cache owns them) and rebound for each row.
private struct StoreStatements {
    let db: Database
    let findPage: InPlaceStatement
    let deletePage: InPlaceStatement
    let touchPage: InPlaceStatement
    let insertPage: InPlaceStatement
    let clearPage: InPlaceStatement
    let updateMedia: InPlaceStatement
    let insertMedia: InPlaceStatement

    init(_ db: Database) throws {
        self.db = db
        func statement(_ sql: String) throws -> InPlaceStatement { InPlaceStatement(try db.cachedStatement(sql: sql), in: db) }
        findPage = try statement("SELECT id FROM page WHERE url = ?")
        deletePage = try statement("DELETE FROM page WHERE id = ?")
        touchPage = try statement("UPDATE page SET indexedAt = ? WHERE id = ?")
        insertPage = try statement("INSERT INTO page (url, site, indexedAt) VALUES (?, ?, ?)")
        clearPage = try statement("DELETE FROM media WHERE pageID = ?")
        updateMedia = try statement(
            """
            UPDATE media SET kind = ?, sizeClass = ?, site = ?, pageURL = ?, title = ?, caption = ?, tags = ?, json = ?, urlKey = ?,
                animated = ?, durationSeconds = ?
            WHERE pageID = ? AND url = ?
            """)
        insertMedia = try statement(
            """
            INSERT INTO media (pageID, url, kind, sizeClass, site, pageURL, title, caption, tags, json, urlKey, animated, durationSeconds)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
    }
}
