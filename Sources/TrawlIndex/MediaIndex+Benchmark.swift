import GRDB
import TrawlCore

extension MediaIndex {
    /// What an ``IndexWriter`` flush does with a group: store it in one transaction. With
    /// `throughQueue`, the path before rows were bound in place instead (queue it in one transaction,
    /// then apply the queue), for before/after figures from one binary. For `trawl-index-bench`,
    /// which feeds groups itself to time them.
    public func benchmarkFlush(_ extractions: [Extraction], throughQueue: Bool = false, now: Double = 0) async throws {
        let updates = extractions.flatMap(PageUpdate.updates(for:))
        if throughQueue {
            try await enqueue(updates, now: now)
            try await drainPending(now: now)
        } else {
            try await store(updates, now: now)
        }
    }

    /// Folds the WAL into the main file, so the file size is the index's size.
    public func benchmarkCheckpoint() async throws {
        try await pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }
}
