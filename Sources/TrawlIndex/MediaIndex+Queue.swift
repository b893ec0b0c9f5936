import Foundation
import GRDB
import TrawlCore

/// The on-disk update queue: updates written to `pending`/`pending_media`, coalesced per page,
/// then applied to `page`/`media` in batches. Applying a batch and deleting its queue rows is one
/// transaction, so a process killed at any instant leaves each update either waiting or applied,
/// never lost and never applied twice; whatever waits is applied by the next writer.
///
/// ``IndexWriter`` does not route its groups through it (``store(_:now:)`` writes a group
/// straight into the index in one transaction: the same guarantee with each row written once);
/// the queue is for what an older Trawl left waiting in a file, and for callers that want an
/// update on disk before they can afford to apply it.
///
/// Each media is encoded once, when queued, into the very columns `media` holds: applying copies
/// rows with one `INSERT … SELECT` per page and decodes nothing.
extension MediaIndex {
    /// Writes `updates` to the queue in one transaction, each coalesced with what already waits
    /// for its page: a full list replaces what waits; a partial one is laid over it.
    func enqueue(_ updates: [PageUpdate], now: Double) async throws {
        guard !updates.isEmpty else { return }
        try await write("queueing \(updates.count) page updates") { db in
            let waiting = try db.cachedStatement(sql: "SELECT mode FROM pending WHERE page = ?")
            let upsertPage = try db.cachedStatement(
                sql: """
                    INSERT INTO pending (page, mode, version, queuedAt) VALUES (?, ?, 1, ?)
                    ON CONFLICT(page) DO UPDATE SET mode = excluded.mode, version = pending.version + 1
                    """)
            let clear = try db.cachedStatement(sql: "DELETE FROM pending_media WHERE page = ?")
            let nextPosition = try db.cachedStatement(sql: "SELECT coalesce(max(position) + 1, 0) FROM pending_media WHERE page = ?")
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO pending_media (page, url, position, kind, sizeClass, site, pageURL, title, caption, tags, json, urlKey,
                        animated, durationSeconds)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(page, url) DO UPDATE SET kind = excluded.kind, sizeClass = excluded.sizeClass,
                        site = excluded.site, pageURL = excluded.pageURL, title = excluded.title,
                        caption = excluded.caption, tags = excluded.tags, json = excluded.json, urlKey = excluded.urlKey,
                        animated = excluded.animated, durationSeconds = excluded.durationSeconds
                    """)
            for update in updates {
                let before = try String.fetchOne(waiting, arguments: [update.page]).flatMap(PageUpdate.Mode.init(rawValue:))
                let mode: PageUpdate.Mode
                if update.mode == .replace {
                    try clear.execute(arguments: [update.page])
                    mode = .replace
                } else {
                    mode = before ?? .merge
                }
                try upsertPage.execute(arguments: [update.page, mode.rawValue, now])
                var position = update.mode == .replace ? 0 : try Int.fetchOne(nextPosition, arguments: [update.page]) ?? 0
                let site = SiteName.of(url: update.page)
                for item in update.media {
                    let document = IndexedDocument(item, pageURL: update.page, site: site)
                    try insert.execute(arguments: [
                        update.page, item.url, position, document.kind, document.sizeClass, document.site, document.pageURL,
                        document.title, document.caption, document.tags, document.record, document.urlKey,
                        document.animated, document.durationSeconds,
                    ])
                    position += 1
                }
            }
        }
    }

    /// Applies up to `limit` waiting updates, oldest first, in one transaction.
    /// - Returns: how many were applied (0: the queue is empty).
    @discardableResult
    func applyPending(limit: Int = 500, now: Double) async throws -> Int {
        try await write("applying queued updates") { db in
            let rows = try Row.fetchAll(db, sql: "SELECT page, mode, version FROM pending ORDER BY queuedAt, page LIMIT ?", arguments: [limit])
            let done = try db.cachedStatement(sql: "DELETE FROM pending WHERE page = ? AND version = ?")
            for row in rows {
                let page: String = row["page"]
                try Self.apply(page: page, mode: PageUpdate.Mode(rawValue: row["mode"]) ?? .merge, db: db, now: now)
                // Its media go with it (cascade).
                try done.execute(arguments: [page, row["version"] as Int])
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

    /// Makes the page's entries what its queue rows say.
    private static func apply(page: String, mode: PageUpdate.Mode, db: Database, now: Double) throws {
        let existing = try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM page WHERE url = ?"), arguments: [page])
        let hasMedia = try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM pending_media WHERE page = ?)"), arguments: [page]) ?? false
        if mode == .replace, !hasMedia {
            // Nothing left on the page: the page goes, and its media with it (cascade).
            if let existing { try db.execute(sql: "DELETE FROM page WHERE id = ?", arguments: [existing]) }
            return
        }
        let pageID: Int64
        if let existing {
            pageID = existing
            try db.cachedStatement(sql: "UPDATE page SET indexedAt = ? WHERE id = ?").execute(arguments: [now, pageID])
            if mode == .replace {
                try db.cachedStatement(sql: "DELETE FROM media WHERE pageID = ?").execute(arguments: [pageID])
            }
        } else {
            try db.cachedStatement(sql: "INSERT INTO page (url, site, indexedAt) VALUES (?, ?, ?)")
                .execute(arguments: [page, SiteName.of(url: page), now])
            pageID = db.lastInsertedRowID
        }
        // Update the media the page has, then insert the others: not an upsert (`INSERT … ON
        // CONFLICT DO UPDATE`), under whose conflict handling SQLite runs the UPDATE trigger's
        // `INSERT OR IGNORE INTO cell`, which then fails on a cell that exists ("UNIQUE
        // constraint failed: cell.site…").
        try db.cachedStatement(
            sql: """
                UPDATE media SET kind = p.kind, sizeClass = p.sizeClass, site = p.site, pageURL = p.pageURL,
                    title = p.title, caption = p.caption, tags = p.tags, json = p.json, urlKey = p.urlKey,
                    animated = p.animated, durationSeconds = p.durationSeconds
                FROM pending_media p WHERE p.page = ? AND media.pageID = ? AND media.url = p.url
                """
        ).execute(arguments: [page, pageID])
        try db.cachedStatement(
            sql: """
                INSERT INTO media (pageID, url, kind, sizeClass, site, pageURL, title, caption, tags, json, urlKey, animated, durationSeconds)
                SELECT ?, p.url, p.kind, p.sizeClass, p.site, p.pageURL, p.title, p.caption, p.tags, p.json, p.urlKey,
                    p.animated, p.durationSeconds
                FROM pending_media p
                WHERE p.page = ? AND NOT EXISTS (SELECT 1 FROM media m WHERE m.pageID = ? AND m.url = p.url)
                ORDER BY p.position
                """
        ).execute(arguments: [pageID, page, pageID])
    }
}

/// The columns one media is indexed under.
struct IndexedDocument {
    var kind: String
    var sizeClass: String
    var site: String
    var pageURL: String
    var title: String?
    /// Alt text, caption or content description (``TrawlCore/Media/caption``).
    var caption: String?
    /// The media's tags, space-separated: each is searchable as words.
    var tags: String?
    /// The whole media as the `json` column stores it (``MediaRecord``).
    var record: Data
    /// The media's ``MediaKey``: the same for every page it is found on.
    var urlKey: Int64
    /// What a probe found (`1`, `0`); `nil` when not probed or it could not tell.
    var animated: Int64?
    /// The probe's running time.
    var durationSeconds: Double?

    /// The columns of `media` as found on `pageURL` (its page set to it when it names none; its
    /// highlight, a search's, left out).
    init(_ media: Media, pageURL: String, site: String) {
        kind = media.kind.rawValue
        sizeClass = SizeClass(width: media.width, height: media.height).rawValue
        self.site = site
        self.pageURL = pageURL
        // FTS5's highlight marks are control characters: a title must not carry its own.
        title = media.title.map { title in
            title.unicodeScalars.contains { $0 == "\u{2}" || $0 == "\u{3}" }
                ? String(String.UnicodeScalarView(title.unicodeScalars.filter { $0 != "\u{2}" && $0 != "\u{3}" })) : title
        }
        caption = media.caption
        tags = media.tags.flatMap { $0.isEmpty ? nil : $0.joined(separator: " ") }
        var bytes: [UInt8] = []
        MediaRecord.encode(media, defaultPage: pageURL, into: &bytes)
        record = Data(bytes)
        urlKey = MediaKey.of(media.url)
        animated = media.probe?.animated.map { $0 ? 1 : 0 }
        durationSeconds = MediaIndex.durationSeconds(of: media)
    }
}

extension MediaIndex {
    /// The running time `min-duration:` reads: the probe's, else the one the source states.
    /// The probe wins: it read the primary file's own header, while a site's figure may be
    /// rounded (TikTok's whole seconds) or the post's rather than this file's.
    static func durationSeconds(of media: Media) -> Double? {
        media.probe?.durationSeconds ?? media.durationSeconds
    }
}
