import TrawlCore

/// A group of page updates already turned into the values `page` and `media` take, made before
/// the write transaction (so none of it runs on the single writer's connection) and laid out
/// for binding without copies: every string and record of the group is one run of ``bytes``,
/// and each row names its columns as ranges of it (``Field``). The writer binds pointers into
/// ``bytes`` (SQLite's `SQLITE_STATIC`), so a row costs no allocation on either side (measured:
/// building rows, `Data`, GRDB's argument arrays and SQLite's copies were most of an insert).
struct PreparedGroup: Sendable {
    /// A column's bytes in ``PreparedGroup/bytes``; ``null`` for SQL `NULL`.
    struct Field: Sendable {
        var start: Int32
        var count: Int32

        static let null = Field(start: 0, count: -1)
        var isNull: Bool { count < 0 }
    }

    /// One media: the columns of `media` but the page's own (page id, page URL, site).
    struct Row: Sendable {
        var url: Field
        var kind: Field
        var sizeClass: Field
        var title: Field
        var caption: Field
        var tags: Field
        /// The ``MediaRecord`` (the `json` column, a blob).
        var record: Field
        /// The media's ``MediaKey``.
        var urlKey: Int64
        /// What a probe found (`1`, `0`), `nil` when not probed or it could not tell.
        var animated: Int64?
        /// The probe's running time.
        var durationSeconds: Double?
    }

    /// One page update: its URL and site, and its rows, ``rows``[`rows`].
    struct Page: Sendable {
        var url: Field
        var site: Field
        var mode: PageUpdate.Mode
        var rows: Range<Int>
        /// No two rows have the same media URL: each can be inserted without looking for the other.
        var distinctURLs: Bool
    }

    private(set) var bytes: [UInt8] = []
    private(set) var pages: [Page] = []
    private(set) var rows: [Row] = []

    /// Prepares `updates` (already coalesced per page, in order).
    init(_ updates: [PageUpdate]) {
        let rowCount = updates.reduce(0) { $0 + $1.media.count }
        rows.reserveCapacity(rowCount)
        pages.reserveCapacity(updates.count)
        // ~250 bytes a media (URL, title, the record's copy of both); growing is cheap anyway.
        bytes.reserveCapacity(1 + rowCount * 320)
        // A first byte, so an empty field still points into the buffer (a null pointer would
        // bind NULL, not an empty string).
        bytes.append(0)
        for update in updates {
            let url = append(update.page)
            // Parsed once per page (Foundation's URL parsing showed in the insert profile).
            let site = append(SiteName.of(url: update.page))
            let first = rows.count
            for media in update.media {
                let url = append(media.url)
                let kind = append(media.kind.rawValue)
                let sizeClass = append(SizeClass(width: media.width, height: media.height).rawValue)
                var title = Field.null, caption = Field.null, tags = Field.null
                if let text = media.title { title = appendTitle(text) }
                if let text = media.caption { caption = append(text) }
                if let list = media.tags, !list.isEmpty { tags = appendTags(list) }
                let record = appendRecord(media, page: update.page)
                rows.append(
                    Row(
                        url: url, kind: kind, sizeClass: sizeClass, title: title, caption: caption, tags: tags, record: record,
                        urlKey: MediaKey.of(media.url), animated: media.probe?.animated.map { $0 ? 1 : 0 },
                        durationSeconds: MediaIndex.durationSeconds(of: media)))
            }
            pages.append(Page(url: url, site: site, mode: update.mode, rows: first..<rows.count, distinctURLs: Self.distinct(update.media)))
        }
    }

    private mutating func field(from start: Int) -> Field {
        Field(start: Int32(start), count: Int32(bytes.count - start))
    }

    private mutating func append(_ text: String) -> Field {
        let start = bytes.count
        bytes.append(contentsOf: text.utf8)
        return field(from: start)
    }

    /// The title without the control characters FTS5's highlight marks with (a title must not
    /// carry its own marks).
    private mutating func appendTitle(_ title: String) -> Field {
        let start = bytes.count
        for byte in title.utf8 where byte != 2 && byte != 3 { bytes.append(byte) }
        return field(from: start)
    }

    /// The tags space-separated: each is searchable as words.
    private mutating func appendTags(_ tags: [String]) -> Field {
        let start = bytes.count
        for (n, tag) in tags.enumerated() {
            if n > 0 { bytes.append(UInt8(ascii: " ")) }
            bytes.append(contentsOf: tag.utf8)
        }
        return field(from: start)
    }

    private mutating func appendRecord(_ media: Media, page: String) -> Field {
        let start = bytes.count
        MediaRecord.encode(media, defaultPage: page, into: &bytes)
        return field(from: start)
    }

    /// Whether no two of `media` share a URL (pairwise for a page's usual handful: no set to
    /// allocate).
    private static func distinct(_ media: [Media]) -> Bool {
        guard media.count > 1 else { return true }
        guard media.count <= 16 else { return Set(media.lazy.map(\.url)).count == media.count }
        for i in media.indices {
            for j in media.index(after: i)..<media.endIndex where media[i].url == media[j].url { return false }
        }
        return true
    }
}
