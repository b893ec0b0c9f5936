import GRDB
import TrawlCore

/// The writer's path into the index: a group of page updates written straight into `page` and
/// `media` (and, by their triggers, the full-text index and the cell tables) in one transaction.
///
/// The transaction is what makes it safe: a process killed at any instant leaves a group either
/// wholly in the index or not at all (then it was still in the writer's memory, as before it
/// reached the on-disk queue), so no page is ever half-replaced and nothing is applied twice. Each
/// row is written once (the queue wrote it twice, issue 19), with statements prepared once per
/// connection and reused for every row.
extension MediaIndex {
    /// Applies `updates` (already coalesced per page, in order) in one transaction.
    func store(_ updates: [PageUpdate], now: Double) async throws {
        guard !updates.isEmpty else { return }
        try await write("indexing \(updates.count) page updates") { db in
            let statements = try StoreStatements(db)
            for update in updates {
                try Self.store(update, statements: statements, now: now)
            }
        }
    }

    private static func store(_ update: PageUpdate, statements: StoreStatements, now: Double) throws {
        let existing = try Int64.fetchOne(statements.findPage, arguments: [update.page])
        if update.media.isEmpty {
            // A full list with nothing in it: the page goes, and its media with it (cascade).
            if update.mode == .replace, let existing { try statements.deletePage.execute(arguments: [existing]) }
            return
        }
        // Parsed once per page (Foundation's URL parsing showed in the insert profile).
        let site = SiteName.of(url: update.page)
        let pageID: Int64
        if let existing {
            pageID = existing
            try statements.touchPage.execute(arguments: [now, pageID])
            if update.mode == .replace { try statements.clearPage.execute(arguments: [pageID]) }
        } else {
            try statements.insertPage.execute(arguments: [update.page, site, now])
            pageID = statements.db.lastInsertedRowID
        }
        for item in update.media {
            let document = IndexedDocument(item, pageURL: update.page, site: site)
            // Update, else insert: not an upsert, whose conflict clause would override the
            // triggers' `INSERT OR IGNORE INTO cell` and fail on a cell that exists.
            try statements.updateMedia.execute(arguments: [
                document.kind, document.sizeClass, document.site, document.pageURL,
                document.title, document.caption, document.tags, document.record, pageID, item.url,
            ])
            if statements.db.changesCount == 0 {
                try statements.insertMedia.execute(arguments: [
                    pageID, item.url, document.kind, document.sizeClass, document.site, document.pageURL,
                    document.title, document.caption, document.tags, document.record,
                ])
            }
        }
    }
}

/// The statements ``MediaIndex/store(_:now:)`` runs per page and per media: prepared once per
/// connection (GRDB's statement cache) and rebound for each row.
private struct StoreStatements {
    let db: Database
    let findPage: Statement
    let deletePage: Statement
    let touchPage: Statement
    let insertPage: Statement
    let clearPage: Statement
    let updateMedia: Statement
    let insertMedia: Statement

    init(_ db: Database) throws {
        self.db = db
        findPage = try db.cachedStatement(sql: "SELECT id FROM page WHERE url = ?")
        deletePage = try db.cachedStatement(sql: "DELETE FROM page WHERE id = ?")
        touchPage = try db.cachedStatement(sql: "UPDATE page SET indexedAt = ? WHERE id = ?")
        insertPage = try db.cachedStatement(sql: "INSERT INTO page (url, site, indexedAt) VALUES (?, ?, ?)")
        clearPage = try db.cachedStatement(sql: "DELETE FROM media WHERE pageID = ?")
        updateMedia = try db.cachedStatement(sql: """
            UPDATE media SET kind = ?, sizeClass = ?, site = ?, pageURL = ?, title = ?, caption = ?, tags = ?, json = ?
            WHERE pageID = ? AND url = ?
            """)
        insertMedia = try db.cachedStatement(sql: """
            INSERT INTO media (pageID, url, kind, sizeClass, site, pageURL, title, caption, tags, json)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
    }
}
