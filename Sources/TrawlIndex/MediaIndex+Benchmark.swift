import GRDB
import TrawlCore

extension MediaIndex {
    /// What an ``IndexWriter`` flush does with a group: queue it in one transaction, apply it
    /// in batches. For `trawl-index-bench`, which feeds groups itself to time them.
    public func benchmarkFlush(_ extractions: [Extraction], now: Double = 0) async throws {
        try await enqueue(extractions.flatMap(PageUpdate.updates(for:)), now: now)
        try await drainPending(now: now)
    }

    /// Folds the WAL into the main file, so the file size is the index's size.
    public func benchmarkCheckpoint() async throws {
        try await pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }
}
