import GRDB

/// The store's schema, as named migrations: a store written by an older Trawl is brought up to
/// date when opened, and each step runs once.
enum StoreMigrations {
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
