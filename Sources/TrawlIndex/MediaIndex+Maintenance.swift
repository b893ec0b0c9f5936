public import Foundation
import GRDB
public import TrawlCore

/// What `trawl index stats` prints.
public struct IndexStats: Sendable, Codable, Hashable {
    public var path: String
    public var pages: Int
    public var media: Int
    /// Page updates waiting in the queue.
    public var pending: Int
    /// The file with its WAL, in bytes.
    public var bytes: Int64
    /// When the oldest and newest page were indexed (seconds since 1970).
    public var oldest: Double?
    public var newest: Double?
    /// Media per site, kind and size class.
    public var facets: Facets
}

extension MediaIndex {
    /// Counts and sizes.
    public func stats() async throws -> IndexStats {
        let path = self.path
        return try await read("reading the index's counts") { db in
            func counts(_ column: String) throws -> [Facets.Count] {
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT c.\(column), sum(t.n) FROM (SELECT cell, count(*) AS n FROM media_cell GROUP BY cell) t
                        JOIN cell c ON c.id = t.cell GROUP BY c.\(column) ORDER BY sum(t.n) DESC, c.\(column)
                        """
                )
                .map { Facets.Count(value: $0[0], count: $0[1]) }
            }
            let range = try Row.fetchOne(db, sql: "SELECT min(indexedAt), max(indexedAt) FROM page")
            let bytes = ["", "-wal"].reduce(Int64(0)) { sum, suffix in
                sum + ((try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? NSNumber)?.int64Value ?? 0)
            }
            return IndexStats(
                path: path,
                pages: try Int.fetchOne(db, sql: "SELECT count(*) FROM page") ?? 0,
                media: try Int.fetchOne(db, sql: "SELECT count(*) FROM media") ?? 0,
                pending: try Int.fetchOne(db, sql: "SELECT count(*) FROM pending") ?? 0,
                bytes: bytes, oldest: range?[0], newest: range?[1],
                facets: Facets(site: try counts("site"), kind: try counts("kind"), size: try counts("sizeClass")))
        }
    }

    /// Removes pages (and their media) last indexed before `date`.
    /// - Returns: how many pages and media went.
    @discardableResult
    public func prune(indexedBefore date: Date) async throws -> (pages: Int, media: Int) {
        let cutoff = date.timeIntervalSince1970
        return try await write("pruning the index") { db in
            let media =
                try Int.fetchOne(db, sql: "SELECT count(*) FROM media JOIN page ON page.id = media.pageID WHERE page.indexedAt < ?", arguments: [cutoff]) ?? 0
            try db.execute(sql: "DELETE FROM page WHERE indexedAt < ?", arguments: [cutoff])
            return (db.changesCount, media)
        }
    }

    /// Applies every queued update, rebuilds the full-text index from the media table (repairing
    /// a full-text index out of step with it), merges its segments and compacts the file.
    public func rebuild() async throws {
        try await drainPending(now: Date().timeIntervalSince1970)
        try await write("rebuilding the full-text index") { db in
            // `rebuild` reads every media row: none may stay noted for a second insert.
            try db.execute(sql: "DELETE FROM media_fts_pending")
            try db.execute(sql: "INSERT INTO media_fts(media_fts) VALUES ('rebuild')")
            try db.execute(sql: "INSERT INTO media_fts(media_fts) VALUES ('optimize')")
        }
        do {
            try await pool.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
        } catch {
            throw IndexError(.failed, "compacting the index \(path) failed: \(error)", underlying: error)
        }
    }

    /// Whether the full-text index agrees with the media table (FTS5's `integrity-check`).
    public func checkIntegrity() async throws -> Bool {
        do {
            try await pool.write { db in
                // Rows noted by a writer that did not move them (an older Trawl's) go in first.
                try IndexSchema.indexPendingRows(db)
                try db.execute(sql: "INSERT INTO media_fts(media_fts, rank) VALUES ('integrity-check', 1)")
            }
            return true
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT {
            return false
        }
    }
}
