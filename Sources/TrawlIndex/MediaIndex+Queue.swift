import Foundation
import GRDB
import TrawlCore

/// The durable update queue: updates are first written to `pending` (coalesced per page), then
/// applied to `page`/`media` in batches. Applying a batch and deleting its `pending` rows is one
/// transaction, so a process killed at any instant leaves each update either waiting or applied,
/// never lost and never applied twice; whatever waits is applied by the next writer to open.
extension MediaIndex {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    /// Writes `updates` to the queue in one transaction, each coalesced with what already waits
    /// for its page.
    func enqueue(_ updates: [PageUpdate], now: Double) async throws {
        guard !updates.isEmpty else { return }
        try await write("queueing \(updates.count) page updates") { db in
            for update in updates {
                var update = update
                var version = 1
                if let row = try Row.fetchOne(db, sql: "SELECT mode, media, version FROM pending WHERE page = ?", arguments: [update.page]) {
                    let waiting = try Self.decode(row, page: update.page)
                    update = waiting.coalesced(with: update)
                    version = (row["version"] as Int) + 1
                }
                try db.execute(
                    sql: """
                        INSERT INTO pending (page, mode, media, version, queuedAt) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT(page) DO UPDATE SET mode = excluded.mode, media = excluded.media, version = excluded.version
                        """,
                    arguments: [update.page, update.mode.rawValue, try Self.encoder.encode(update.media), version, now])
            }
        }
    }

    private static func decode(_ row: Row, page: String) throws -> PageUpdate {
        let mode = PageUpdate.Mode(rawValue: row["mode"]) ?? .merge
        let media = try JSONDecoder().decode([Media].self, from: row["media"] as Data)
        return PageUpdate(page: page, mode: mode, media: media)
    }

    /// Applies up to `limit` waiting updates, oldest first, in one transaction.
    /// - Returns: how many were applied (0: the queue is empty).
    @discardableResult
    func applyPending(limit: Int = 500, now: Double) async throws -> Int {
        try await write("applying queued updates") { db in
            let rows = try Row.fetchAll(db, sql: "SELECT page, mode, media, version FROM pending ORDER BY queuedAt, page LIMIT ?", arguments: [limit])
            for row in rows {
                let page: String = row["page"]
                try Self.apply(try Self.decode(row, page: page), db: db, now: now)
                try db.execute(sql: "DELETE FROM pending WHERE page = ? AND version = ?", arguments: [page, row["version"] as Int])
            }
            return rows.count
        }
    }

    /// Applies every waiting update.
    func drainPending(now: Double) async throws {
        while try await applyPending(now: now) > 0 {}
    }

    /// How many page updates wait in the queue.
    public func pendingCount() async throws -> Int {
        try await read("counting queued updates") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM pending") ?? 0 }
    }

    static func apply(_ update: PageUpdate, db: Database, now: Double) throws {
        let existing = try Int64.fetchOne(db, sql: "SELECT id FROM page WHERE url = ?", arguments: [update.page])
        if update.mode == .replace, update.media.isEmpty {
            // Nothing left on the page: the page goes, and its media with it (cascade).
            if let existing { try db.execute(sql: "DELETE FROM page WHERE id = ?", arguments: [existing]) }
            return
        }
        let site = SiteName.of(url: update.page)
        let pageID: Int64
        if let existing {
            pageID = existing
            try db.execute(sql: "UPDATE page SET indexedAt = ? WHERE id = ?", arguments: [now, pageID])
            if update.mode == .replace {
                try db.execute(sql: "DELETE FROM media WHERE pageID = ?", arguments: [pageID])
            }
        } else {
            try db.execute(sql: "INSERT INTO page (url, site, indexedAt) VALUES (?, ?, ?)", arguments: [update.page, site, now])
            pageID = db.lastInsertedRowID
        }
        let insert = try db.cachedStatement(sql: """
            INSERT INTO media (pageID, url, kind, sizeClass, site, pageURL, title, caption, tags, json)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(pageID, url) DO UPDATE SET kind = excluded.kind, sizeClass = excluded.sizeClass,
                site = excluded.site, title = excluded.title, caption = excluded.caption, tags = excluded.tags,
                json = excluded.json
            """)
        for item in update.media {
            var stored = item
            stored.highlight = nil
            if stored.page == nil { stored.page = update.page }
            let document = IndexedDocument(stored, pageURL: update.page, site: site)
            try insert.execute(arguments: [
                pageID, item.url, document.kind, document.sizeClass, document.site, document.pageURL,
                document.title, document.caption, document.tags, try encoder.encode(stored),
            ])
        }
    }
}

/// The columns one media is indexed under.
struct IndexedDocument {
    var kind: String
    var sizeClass: String
    var site: String
    var pageURL: String
    var title: String?
    /// Alt text or caption: ``TrawlCore/Media`` carries none yet, so this stays empty until
    /// parsers report one.
    var caption: String?
    /// Tags: as ``caption``.
    var tags: String?

    init(_ media: Media, pageURL: String, site: String) {
        kind = media.kind.rawValue
        sizeClass = SizeClass(width: media.width, height: media.height).rawValue
        self.site = site
        self.pageURL = pageURL
        title = media.title
        caption = nil
        tags = nil
    }
}
