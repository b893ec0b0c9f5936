import GRDB

/// The index's tables, as named migrations (each runs once per file).
///
/// - `page`: one row per page (or search-result page) media were found on; deleting it deletes
///   its media (`ON DELETE CASCADE`).
/// - `media`: one row per media of a page, with the columns filters and facets read and the whole
///   ``TrawlCore/Media`` as JSON, so `!local` answers with everything extraction knew.
/// - `media_fts`: FTS5 over title, caption, tags, site and page URL, its content read from
///   `media` and kept in step by triggers (a 3-letter prefix index). Kind and size class are
///   not in it: they are facets, in `cell` (migration `v3-fts-without-facets`). New rows reach it
///   at the end of their transaction, through `media_fts_pending` (migration
///   `v4-fts-per-transaction`).
/// - `cell`: each (site, kind, size class) seen, numbered; `media_cell`: each media's cell number
///   and its media's key (``MediaKey``: one media found on several pages is a row per page, one
///   key), kept in step by the same triggers: what facet counts, filters and the collapsing of
///   a media's rows into one result read per match (migration `v5-media-url-key`).
/// - `pending` and `pending_media`: the durable update queue, one row per page waiting to be
///   applied and its media, already in `media`'s columns (their key too).
/// - `media.animated` and `media.durationSeconds` (and the queue's copies): what a probe
///   (`--probe`) found, `NULL` for a media never probed, read by the `animated:` and
///   `min-duration:` filters (migration `v6-probe`).
enum IndexSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-index") { db in
            try db.execute(
                sql: """
                    CREATE TABLE page (
                        id INTEGER PRIMARY KEY,
                        url TEXT NOT NULL UNIQUE,
                        site TEXT NOT NULL,
                        indexedAt REAL NOT NULL
                    );
                    CREATE INDEX page_indexedAt ON page(indexedAt);

                    CREATE TABLE media (
                        id INTEGER PRIMARY KEY,
                        pageID INTEGER NOT NULL REFERENCES page(id) ON DELETE CASCADE,
                        url TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        sizeClass TEXT NOT NULL,
                        site TEXT NOT NULL,
                        pageURL TEXT NOT NULL,
                        title TEXT,
                        caption TEXT,
                        tags TEXT,
                        json BLOB NOT NULL,
                        UNIQUE (pageID, url)
                    );

                    CREATE VIRTUAL TABLE media_fts USING fts5(
                        title, caption, tags, site, pageURL, kind, sizeClass,
                        content = 'media', content_rowid = 'id',
                        tokenize = 'unicode61 remove_diacritics 2',
                        prefix = '2 3'
                    );
                    CREATE TRIGGER media_fts_insert AFTER INSERT ON media BEGIN
                        INSERT INTO media_fts(rowid, title, caption, tags, site, pageURL, kind, sizeClass)
                        VALUES (new.id, new.title, new.caption, new.tags, new.site, new.pageURL, new.kind, new.sizeClass);
                    END;
                    CREATE TRIGGER media_fts_delete AFTER DELETE ON media BEGIN
                        INSERT INTO media_fts(media_fts, rowid, title, caption, tags, site, pageURL, kind, sizeClass)
                        VALUES ('delete', old.id, old.title, old.caption, old.tags, old.site, old.pageURL, old.kind, old.sizeClass);
                    END;
                    CREATE TRIGGER media_fts_update AFTER UPDATE ON media BEGIN
                        INSERT INTO media_fts(media_fts, rowid, title, caption, tags, site, pageURL, kind, sizeClass)
                        VALUES ('delete', old.id, old.title, old.caption, old.tags, old.site, old.pageURL, old.kind, old.sizeClass);
                        INSERT INTO media_fts(rowid, title, caption, tags, site, pageURL, kind, sizeClass)
                        VALUES (new.id, new.title, new.caption, new.tags, new.site, new.pageURL, new.kind, new.sizeClass);
                    END;

                    CREATE TABLE pending (
                        page TEXT PRIMARY KEY,
                        mode TEXT NOT NULL,
                        version INTEGER NOT NULL,
                        queuedAt REAL NOT NULL
                    );
                    -- A waiting update's media, in the columns `media` takes: applying is a copy.
                    CREATE TABLE pending_media (
                        page TEXT NOT NULL REFERENCES pending(page) ON DELETE CASCADE,
                        url TEXT NOT NULL,
                        position INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        sizeClass TEXT NOT NULL,
                        site TEXT NOT NULL,
                        pageURL TEXT NOT NULL,
                        title TEXT,
                        caption TEXT,
                        tags TEXT,
                        json BLOB NOT NULL,
                        PRIMARY KEY (page, url)
                    ) WITHOUT ROWID;
                    CREATE INDEX pending_queuedAt ON pending(queuedAt);
                    """)
        }
        // Searches read every match's site, kind and size for the facets (and the filters).
        // Read from `media` (~700 bytes a row: title, URLs, JSON) they cost a cache miss per
        // match, and grouping by three text columns sorted them; `media_cell`
        // holds one small integer per media (its `cell`: the triple, numbered), ~8 bytes a row,
        // so a million rows stay in the cache and counting groups by one integer. The 2-letter
        // prefix index made each title word cost three index entries, for the rare 2-letter
        // prefix query, which scans the terms instead.
        migrator.registerMigration("v2-lean-search") { db in
            try db.execute(
                sql: """
                    DROP TRIGGER media_fts_insert;
                    DROP TRIGGER media_fts_delete;
                    DROP TRIGGER media_fts_update;
                    DROP TABLE media_fts;
                    CREATE VIRTUAL TABLE media_fts USING fts5(
                        title, caption, tags, site, pageURL, kind, sizeClass,
                        content = 'media', content_rowid = 'id',
                        tokenize = 'unicode61 remove_diacritics 2',
                        prefix = '3'
                    );
                    INSERT INTO media_fts(media_fts) VALUES ('rebuild');

                    -- Every (site, kind, size class) seen, numbered: a few dozen rows.
                    CREATE TABLE cell (
                        id INTEGER PRIMARY KEY,
                        site TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        sizeClass TEXT NOT NULL,
                        UNIQUE (site, kind, sizeClass)
                    );
                    INSERT OR IGNORE INTO cell (site, kind, sizeClass) SELECT DISTINCT site, kind, sizeClass FROM media;
                    CREATE TABLE media_cell (
                        id INTEGER PRIMARY KEY,
                        cell INTEGER NOT NULL
                    );
                    INSERT INTO media_cell (id, cell)
                    SELECT m.id, c.id FROM media m JOIN cell c ON c.site = m.site AND c.kind = m.kind AND c.sizeClass = m.sizeClass;

                    CREATE TRIGGER media_insert AFTER INSERT ON media BEGIN
                        INSERT INTO media_fts(rowid, title, caption, tags, site, pageURL, kind, sizeClass)
                        VALUES (new.id, new.title, new.caption, new.tags, new.site, new.pageURL, new.kind, new.sizeClass);
                        INSERT OR IGNORE INTO cell (site, kind, sizeClass) VALUES (new.site, new.kind, new.sizeClass);
                        INSERT INTO media_cell (id, cell) VALUES (new.id, (SELECT id FROM cell
                            WHERE site = new.site AND kind = new.kind AND sizeClass = new.sizeClass));
                    END;
                    CREATE TRIGGER media_delete AFTER DELETE ON media BEGIN
                        INSERT INTO media_fts(media_fts, rowid, title, caption, tags, site, pageURL, kind, sizeClass)
                        VALUES ('delete', old.id, old.title, old.caption, old.tags, old.site, old.pageURL, old.kind, old.sizeClass);
                        DELETE FROM media_cell WHERE id = old.id;
                    END;
                    CREATE TRIGGER media_update AFTER UPDATE ON media BEGIN
                        INSERT INTO media_fts(media_fts, rowid, title, caption, tags, site, pageURL, kind, sizeClass)
                        VALUES ('delete', old.id, old.title, old.caption, old.tags, old.site, old.pageURL, old.kind, old.sizeClass);
                        INSERT INTO media_fts(rowid, title, caption, tags, site, pageURL, kind, sizeClass)
                        VALUES (new.id, new.title, new.caption, new.tags, new.site, new.pageURL, new.kind, new.sizeClass);
                        INSERT OR IGNORE INTO cell (site, kind, sizeClass) VALUES (new.site, new.kind, new.sizeClass);
                        UPDATE media_cell SET cell = (SELECT id FROM cell
                            WHERE site = new.site AND kind = new.kind AND sizeClass = new.sizeClass) WHERE id = new.id;
                    END;
                    """)
        }
        // Leaner inserts: kind and size class are facets, filtered (`kind:`, `size:`)
        // and counted from `cell`; as FTS5 tokens they cost every media two more index entries
        // (terms in a third of all rows: long doclists, each insert appending to them) and made a
        // bare `gif`, `large` or `med*` match every media of that kind or size. The page URL stays
        // (a slug names what the page shows, so it is searched).
        migrator.registerMigration("v3-fts-without-facets") { db in
            try db.execute(
                sql: """
                    DROP TRIGGER media_insert;
                    DROP TRIGGER media_delete;
                    DROP TRIGGER media_update;
                    DROP TABLE media_fts;
                    CREATE VIRTUAL TABLE media_fts USING fts5(
                        title, caption, tags, site, pageURL,
                        content = 'media', content_rowid = 'id',
                        tokenize = 'unicode61 remove_diacritics 2',
                        prefix = '3'
                    );
                    INSERT INTO media_fts(media_fts) VALUES ('rebuild');

                    CREATE TRIGGER media_insert AFTER INSERT ON media BEGIN
                        INSERT INTO media_fts(rowid, title, caption, tags, site, pageURL)
                        VALUES (new.id, new.title, new.caption, new.tags, new.site, new.pageURL);
                        INSERT OR IGNORE INTO cell (site, kind, sizeClass) VALUES (new.site, new.kind, new.sizeClass);
                        INSERT INTO media_cell (id, cell) VALUES (new.id, (SELECT id FROM cell
                            WHERE site = new.site AND kind = new.kind AND sizeClass = new.sizeClass));
                    END;
                    CREATE TRIGGER media_delete AFTER DELETE ON media BEGIN
                        INSERT INTO media_fts(media_fts, rowid, title, caption, tags, site, pageURL)
                        VALUES ('delete', old.id, old.title, old.caption, old.tags, old.site, old.pageURL);
                        DELETE FROM media_cell WHERE id = old.id;
                    END;
                    CREATE TRIGGER media_update AFTER UPDATE ON media BEGIN
                        INSERT INTO media_fts(media_fts, rowid, title, caption, tags, site, pageURL)
                        VALUES ('delete', old.id, old.title, old.caption, old.tags, old.site, old.pageURL);
                        INSERT INTO media_fts(rowid, title, caption, tags, site, pageURL)
                        VALUES (new.id, new.title, new.caption, new.tags, new.site, new.pageURL);
                        INSERT OR IGNORE INTO cell (site, kind, sizeClass) VALUES (new.site, new.kind, new.sizeClass);
                        UPDATE media_cell SET cell = (SELECT id FROM cell
                            WHERE site = new.site AND kind = new.kind AND sizeClass = new.sizeClass) WHERE id = new.id;
                    END;
                    """)
        }
        // Inserts 3x cheaper in SQLite: an AFTER INSERT trigger writing into FTS5 would make
        // FTS5 flush its in-memory term lists at every media row (the row's statement opens a
        // savepoint, and FTS5 writes out what it holds at each one), so every row would become a
        // segment of its own, with the merges that follow. The insert trigger only notes the new
        // id in `media_fts_pending`, and the transaction's end (`MediaIndex.write`) moves every
        // noted row into FTS5 with one statement. A row inserted and then updated or deleted in
        // the same transaction is not in FTS5 yet: the triggers then leave FTS5 alone (the update
        // is read at the flush; a delete only drops the note). Measured with Python's sqlite3 on
        // 200 000 synthetic rows, 5 000 per transaction: 31.6 µs of CPU a row with a trigger
        // writing into FTS5, 10.4 µs with the flush per transaction.
        migrator.registerMigration("v4-fts-per-transaction") { db in
            try db.execute(
                sql: """
                    CREATE TABLE media_fts_pending (id INTEGER PRIMARY KEY);
                    DROP TRIGGER media_insert;
                    DROP TRIGGER media_delete;
                    DROP TRIGGER media_update;
                    CREATE TRIGGER media_insert AFTER INSERT ON media BEGIN
                        INSERT INTO media_fts_pending (id) VALUES (new.id);
                        INSERT OR IGNORE INTO cell (site, kind, sizeClass) VALUES (new.site, new.kind, new.sizeClass);
                        INSERT INTO media_cell (id, cell) VALUES (new.id, (SELECT id FROM cell
                            WHERE site = new.site AND kind = new.kind AND sizeClass = new.sizeClass));
                    END;
                    CREATE TRIGGER media_delete AFTER DELETE ON media BEGIN
                        INSERT INTO media_fts(media_fts, rowid, title, caption, tags, site, pageURL)
                        SELECT 'delete', old.id, old.title, old.caption, old.tags, old.site, old.pageURL
                        WHERE NOT EXISTS (SELECT 1 FROM media_fts_pending WHERE id = old.id);
                        DELETE FROM media_fts_pending WHERE id = old.id;
                        DELETE FROM media_cell WHERE id = old.id;
                    END;
                    CREATE TRIGGER media_update AFTER UPDATE ON media
                    WHEN NOT EXISTS (SELECT 1 FROM media_fts_pending WHERE id = old.id) BEGIN
                        INSERT INTO media_fts(media_fts, rowid, title, caption, tags, site, pageURL)
                        VALUES ('delete', old.id, old.title, old.caption, old.tags, old.site, old.pageURL);
                        INSERT INTO media_fts(rowid, title, caption, tags, site, pageURL)
                        VALUES (new.id, new.title, new.caption, new.tags, new.site, new.pageURL);
                    END;
                    CREATE TRIGGER media_update_cell AFTER UPDATE ON media BEGIN
                        INSERT OR IGNORE INTO cell (site, kind, sizeClass) VALUES (new.site, new.kind, new.sizeClass);
                        UPDATE media_cell SET cell = (SELECT id FROM cell
                            WHERE site = new.site AND kind = new.kind AND sizeClass = new.sizeClass) WHERE id = new.id;
                    END;
                    """)
        }
        // One media found on several pages is a row per page; a search counts, pages and facets
        // distinct media, so `media_cell` holds each row's media key (``MediaKey``, a hash of the
        // canonical URL) beside its cell, where the search reads it with no row of `media` per
        // match. SQL cannot canonicalise a URL: the writer computes the key and hands it to the
        // insert trigger in `media.urlKey` (and the queue keeps it in `pending_media`). Rows of
        // older files get theirs here, in `media_cell` only (rewriting every `media` row would
        // cost the file's size in writes), through a function registered for this migration;
        // an update that names no key keeps the one `media_cell` has. A row inserted without a
        // key (by an older Trawl writing to this file) gets its id negated: a media of its own.
        migrator.registerMigration("v5-media-url-key", foreignKeyChecks: .immediate) { db in
            let key = DatabaseFunction("trawl_media_key", argumentCount: 1, pure: true) { values in
                String.fromDatabaseValue(values[0]).map(MediaKey.of)
            }
            db.add(function: key)
            defer { db.remove(function: key) }
            try db.execute(
                sql: """
                    ALTER TABLE media ADD COLUMN urlKey INTEGER;
                    ALTER TABLE pending_media ADD COLUMN urlKey INTEGER;
                    ALTER TABLE media_cell ADD COLUMN urlKey INTEGER NOT NULL DEFAULT 0;
                    UPDATE pending_media SET urlKey = trawl_media_key(url);
                    UPDATE media_cell SET urlKey = coalesce((SELECT trawl_media_key(url) FROM media WHERE media.id = media_cell.id), -id);

                    DROP TRIGGER media_insert;
                    DROP TRIGGER media_update_cell;
                    CREATE TRIGGER media_insert AFTER INSERT ON media BEGIN
                        INSERT INTO media_fts_pending (id) VALUES (new.id);
                        INSERT OR IGNORE INTO cell (site, kind, sizeClass) VALUES (new.site, new.kind, new.sizeClass);
                        INSERT INTO media_cell (id, cell, urlKey) VALUES (new.id, (SELECT id FROM cell
                            WHERE site = new.site AND kind = new.kind AND sizeClass = new.sizeClass), coalesce(new.urlKey, -new.id));
                    END;
                    CREATE TRIGGER media_update_cell AFTER UPDATE ON media BEGIN
                        INSERT OR IGNORE INTO cell (site, kind, sizeClass) VALUES (new.site, new.kind, new.sizeClass);
                        UPDATE media_cell SET cell = (SELECT id FROM cell
                            WHERE site = new.site AND kind = new.kind AND sizeClass = new.sizeClass),
                            urlKey = coalesce(new.urlKey, urlKey) WHERE id = new.id;
                    END;
                    """)
        }
        // What `--probe` found, as columns the `animated:` and `min-duration:` filters read
        // (the whole probe is in the record too). Rows written before have none: not probed.
        // Only a search with one of these filters reads them, joining `media` by row id.
        migrator.registerMigration("v6-probe") { db in
            try db.execute(
                sql: """
                    ALTER TABLE media ADD COLUMN animated INTEGER;
                    ALTER TABLE media ADD COLUMN durationSeconds REAL;
                    ALTER TABLE pending_media ADD COLUMN animated INTEGER;
                    ALTER TABLE pending_media ADD COLUMN durationSeconds REAL;
                    """)
        }
        return migrator
    }

    /// Moves the rows inserted in this transaction into FTS5, in one statement (so FTS5 writes
    /// them out as one segment), and clears the notes. Run by every write transaction before it
    /// commits (``MediaIndex``'s `write`), so a committed index never has a row FTS5 lacks.
    static func indexPendingRows(_ db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO media_fts(rowid, title, caption, tags, site, pageURL)
                SELECT m.id, m.title, m.caption, m.tags, m.site, m.pageURL
                FROM media_fts_pending p JOIN media m ON m.id = p.id
                """
        ).execute()
        try db.cachedStatement(sql: "DELETE FROM media_fts_pending").execute()
    }

    /// BM25 weights per FTS column, in column order: a word in the title counts most.
    static let bm25Weights = "10.0, 5.0, 5.0, 2.0, 1.0"
}
