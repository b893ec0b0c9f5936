import Foundation
import GRDB
import TrawlCore

/// The local index: every media Trawl found, searchable with FTS5, in one SQLite file (WAL).
///
/// Open it once per process and share it: ``IndexWriter`` feeds it, ``LocalEngine`` searches it,
/// and other processes may use the same file at the same time (SQLite's locks; writers wait).
///
/// A file that is not a database, or one cut short, is set aside (renamed `…corrupt-<time>`) and
/// a new empty index made in its place; ``warnings`` says so, for the caller to show.
///
/// ```swift
/// let index = try MediaIndex(path: "/tmp/index.sqlite")
/// let writer = IndexWriter(index: index)
/// // hand `writer` to TrawlConfiguration.index…, then:
/// await writer.close()
/// ```
public final class MediaIndex: Sendable {
    /// The index file.
    public let path: String
    /// What opening found and did: a corrupt file set aside.
    public let warnings: [String]
    let pool: DatabasePool

    /// Opens (creating it and its folder if needed) the index at `path`.
    /// - Throws: ``IndexError/Code/openFailed`` when the file cannot be opened or made.
    public init(path: String) throws {
        self.path = path
        var warnings: [String] = []
        do {
            try FileManager.default.createDirectory(
                at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw IndexError(.openFailed, "cannot make the folder for the index \(path): \(ErrorSentence.describe(error))", underlying: error)
        }
        if case .corrupt(let reason) = IndexFile.health(at: path) {
            warnings.append(try Self.setAside(path, reason: reason))
        }
        do {
            pool = try Self.open(path)
        } catch let error as DatabaseError where Self.meansCorrupt(error) {
            // The header looked sound but SQLite could not read the file (a damaged schema page).
            warnings.append(try Self.setAside(path, reason: "SQLite could not read it (\(error.resultCode))"))
            do {
                pool = try Self.open(path)
            } catch {
                throw IndexError(.openFailed, "cannot open the index \(path): \(error)", underlying: error)
            }
        } catch {
            throw IndexError(.openFailed, "cannot open the index \(path): \(error)", underlying: error)
        }
        self.warnings = warnings
    }

    private static func open(_ path: String) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // Commits survive the process dying; only a power cut can lose the last moments.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Searches read a match's row for its facets and rank: mapped pages and a larger
            // cache spare a system call per row (a million-row index is ~700 MB).
            try db.execute(sql: "PRAGMA mmap_size = 1073741824")
            try db.execute(sql: "PRAGMA cache_size = -65536")
        }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try IndexSchema.migrator.migrate(pool)
        // Touch every table once, so damage behind a sound header shows now, not mid-search.
        try pool.read { db in
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM pending")
            _ = try Row.fetchOne(db, sql: "SELECT id FROM page ORDER BY id DESC LIMIT 1")
            _ = try Row.fetchOne(db, sql: "SELECT id, json FROM media ORDER BY id DESC LIMIT 1")
            _ = try Row.fetchOne(db, sql: "SELECT rowid FROM media_fts WHERE media_fts MATCH 'a*' LIMIT 1")
        }
        return pool
    }

    static func meansCorrupt(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
    }

    /// Renames a damaged file (and its WAL and shared-memory files) out of the way.
    /// - Returns: the warning to show.
    private static func setAside(_ path: String, reason: String) throws -> String {
        let stamp = Int(Date().timeIntervalSince1970)
        let aside = "\(path).corrupt-\(stamp)"
        let files = FileManager.default
        do {
            if files.fileExists(atPath: aside) { try files.removeItem(atPath: aside) }
            try files.moveItem(atPath: path, toPath: aside)
            for suffix in ["-wal", "-shm"] where files.fileExists(atPath: path + suffix) {
                try files.removeItem(atPath: path + suffix)
            }
        } catch {
            throw IndexError(
                .openFailed, "the index \(path) is corrupt (\(reason)) and cannot be moved aside: \(ErrorSentence.describe(error))", underlying: error)
        }
        return "the index \(path) was corrupt (\(reason)); it was moved to \(aside) and a new, empty index started"
    }

    /// Runs `body` in a read, turning SQLite's errors into ``IndexError``.
    func read<T: Sendable>(_ what: String, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.read(body)
        } catch let error as IndexError {
            throw error
        } catch {
            throw IndexError(.failed, "\(what) failed in the index \(path): \(error)", underlying: error)
        }
    }

    /// Runs `body` in a write transaction, turning SQLite's errors into ``IndexError``. Before
    /// the transaction commits, the media rows it inserted go into the full-text index in one
    /// statement (``IndexSchema/indexPendingRows(_:)``).
    func write<T: Sendable>(_ what: String, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.write { db in
                let result = try body(db)
                try IndexSchema.indexPendingRows(db)
                return result
            }
        } catch let error as IndexError {
            throw error
        } catch {
            throw IndexError(.failed, "\(what) failed in the index \(path): \(error)", underlying: error)
        }
    }
}
