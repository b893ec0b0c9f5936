import GRDB

/// The index's tables, as named migrations (each runs once per file).
///
/// - `page`: one row per page (or search-result page) media were found on; deleting it deletes
///   its media (`ON DELETE CASCADE`).
/// - `media`: one row per media of a page, with the columns filters and facets read and the whole
///   ``TrawlCore/Media`` as JSON, so `!local` answers with everything extraction knew.
/// - `media_fts`: FTS5 over title, caption, tags, site, page URL, kind and size class, its content
///   read from `media` and kept in step by triggers.
/// - `pending` and `pending_media`: the durable update queue, one row per page waiting to be
///   applied and its media, already in `media`'s columns.
enum IndexSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-index") { db in
            try db.execute(sql: """
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
        return migrator
    }

    /// BM25 weights per FTS column, in column order: a word in the title counts most.
    static let bm25Weights = "10.0, 5.0, 5.0, 2.0, 1.0, 1.0, 1.0"
}
