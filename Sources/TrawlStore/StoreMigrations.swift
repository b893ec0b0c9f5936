import GRDB

/// The store's schema, as named migrations: a store written by an older Trawl is brought up to
/// date when opened, and each step runs once.
enum StoreMigrations {
    /// `PRAGMA application_id` of a job store ("TrwJ"): a file that carries it is one.
    static let applicationID: Int32 = 0x5472_774A

    /// A database that already holds tables of something else.
    struct NotAJobStore: Error {
        var tables: String
    }

    /// Marks a new (empty) database as a job store, and accepts one that is a job store already
    /// (marked, or an unmarked store of an earlier Trawl: its `job` table and migrations);
    /// refuses any other database before anything is written to it.
    static func claim(_ db: Database) throws {
        let id = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        if id == applicationID { return }
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        let isEarlierStore = Set(tables).isSuperset(of: ["grdb_migrations", "job", "result"])
        guard id == 0, tables.isEmpty || isEarlierStore else {
            let names = tables.prefix(5).joined(separator: ", ") + (tables.count > 5 ? ", …" : "")
            throw NotAJobStore(tables: tables.isEmpty ? "application id \(id)" : "tables \(names)")
        }
        try db.execute(sql: "PRAGMA application_id = \(applicationID)")
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-jobs") { db in
            try db.execute(
                sql: """
                    CREATE TABLE job (
                        id INTEGER PRIMARY KEY,
                        key TEXT NOT NULL UNIQUE,
                        input TEXT NOT NULL,
                        url TEXT,
                        host TEXT,
                        state TEXT NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        lastError TEXT,
                        nextAttemptAt REAL NOT NULL DEFAULT 0,
                        duplicates INTEGER NOT NULL DEFAULT 0,
                        updatedAt REAL NOT NULL
                    );
                    -- The scheduler asks per host for work that is due.
                    CREATE INDEX job_due ON job(host, state, nextAttemptAt, id);
                    CREATE INDEX job_state ON job(state);

                    -- Final answers, numbered in the order they were reached: the output is
                    -- written in that order, so a watermark says how much of it exists.
                    CREATE TABLE result (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        jobID INTEGER NOT NULL UNIQUE REFERENCES job(id),
                        line TEXT NOT NULL,
                        outcome TEXT NOT NULL,
                        host TEXT,
                        httpStatus INTEGER,
                        mediaCount INTEGER NOT NULL DEFAULT 0,
                        latencyMs INTEGER,
                        errorCode TEXT,
                        finishedAt REAL NOT NULL
                    );

                    -- How far each input list has been read into jobs.
                    CREATE TABLE intake (
                        source TEXT PRIMARY KEY,
                        linesRead INTEGER NOT NULL,
                        complete INTEGER NOT NULL DEFAULT 0
                    );

                    -- How much of the output file is known good: results up to `seq`, `bytes` long.
                    CREATE TABLE output (
                        path TEXT PRIMARY KEY,
                        seq INTEGER NOT NULL,
                        bytes INTEGER NOT NULL
                    );
                    """)
        }
        // Whether a result's page was rendered in the browser, for the summary's count.
        migrator.registerMigration("v2-result-rendered") { db in
            try db.execute(sql: "ALTER TABLE result ADD COLUMN rendered INTEGER NOT NULL DEFAULT 0")
        }
        return migrator
    }
}
