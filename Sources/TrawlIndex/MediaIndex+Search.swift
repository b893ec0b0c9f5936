import Foundation
import GRDB
public import TrawlCore

/// One page of a `!local` search.
///
/// The index holds an entry per page a media was found on; a search answers with distinct media
/// (by canonical URL): ``total``, the pages and the facets count each media once.
public struct LocalPage: Sendable {
    /// At most the page's limit of distinct media, each as found on the most recent page it was
    /// indexed from among its entries that match.
    public var media: [Media]
    /// Distinct media matching after filters, in all; when ``totalIsLowerBound``, among the
    /// ``MediaIndex/countLimit`` newest matching entries only.
    public var total: Int
    /// `true` when the words match more than ``MediaIndex/countLimit`` entries: the search then
    /// counts, facets and ranks only the media of the newest ``MediaIndex/countLimit`` of them,
    /// so ``total`` and the facet counts are lower bounds ("5 000+") and an older match may be
    /// left out.
    public var totalIsLowerBound: Bool
    public var facets: Facets
    /// Where the next page starts; `nil` on the last.
    public var next: Pagination?
}

extension MediaIndex {
    /// The most a page holds.
    public static let maxLimit = 500

    /// The most matching entries a search counts, facets and ranks: the newest this many. A word
    /// in a tenth of a million titles would otherwise cost a BM25 score and a facet lookup for
    /// each of its 100 000 matches (~400 ms); capped, a search costs at most ~3 µs per considered
    /// match.
    public static let countLimit = 5_000

    /// Searches the index: distinct media ranked by BM25 (title weighted most), ties broken
    /// newest first; without words, everything the filters allow, newest first. Only the
    /// ``countLimit`` newest matching entries are considered (``LocalPage/totalIsLowerBound``
    /// says when there were more).
    ///
    /// A media found on several pages has an entry per page; a search answers with it once
    /// (entries with the same canonical URL are one media, ``MediaKey``): as its newest entry
    /// that matches and passes the filters, that is the page it was most recently indexed from
    /// (a page resolved again enters anew), ranked by that entry's score. ``LocalPage/total``
    /// counts distinct media, and each facet value the distinct media with an entry under it (a
    /// media found on two sites counts once under each).
    ///
    /// - Parameters:
    ///   - pagination: `.offset(n)` jumps to the n-th media; `.cursor` (from a ``LocalPage/next``)
    ///     goes on after the last media of the page before.
    ///   - limit: media per page (1…``maxLimit``).
    ///   - countLimit: how many of the newest matching entries to consider (``countLimit`` by
    ///     default); `nil` considers every match, exactly, at a cost that grows with their number.
    /// - Throws: ``IndexError/Code/invalidQuery`` for a cursor that is not this index's or a
    ///   query FTS5 refuses (the message names the query, never SQL).
    public func search(
        _ query: LocalQuery, pagination: Pagination = .start, limit: Int = 25, countLimit: Int? = MediaIndex.countLimit
    ) async throws -> LocalPage {
        let limit = min(max(limit, 1), Self.maxLimit)
        let cap = countLimit.map { max($0, 1) }
        let after: Position?
        let skip: Int
        switch pagination {
        case .offset(let n):
            after = nil
            skip = max(n, 0)
        case .cursor(let token):
            guard let position = Position(token: token) else {
                throw IndexError(
                    .invalidQuery, "'\(LocalQuery.printable(token))' is not a cursor of the local index (query '\(LocalQuery.printable(query.raw))')")
            }
            after = position
            skip = 0
        }
        do {
            return try await pool.read { db in
                let (matches, capped) = try Self.considered(query, cap: cap, db: db)
                let cells = try Self.cellNames(db)
                let cube = Cube(of: matches, cells: cells)
                var ranked = Self.ranked(
                    matches, collapse: !cube.keysAreDistinct, query: query, cells: cells, after: after, skip: skip, limit: limit + 1)
                let more = ranked.count > limit
                if more { ranked.removeLast() }
                let next = more ? ranked.last.map { Pagination.cursor($0.token) } : nil
                return LocalPage(
                    media: try Self.media(for: ranked.map(\.id), query: query, db: db),
                    total: cube.total(query), totalIsLowerBound: capped,
                    facets: cube.facets(query), next: next)
            }
        } catch let error as DatabaseError where error.message?.contains("fts5") == true || error.message?.contains("syntax") == true {
            throw IndexError(.invalidQuery, "the local index cannot read the query '\(LocalQuery.printable(query.raw))'", underlying: error)
        } catch let error as IndexError {
            throw error
        } catch {
            // An answer to whoever asked: SQLite's reason, never the statement or the file's path.
            let reason = (error as? DatabaseError)?.message ?? ErrorSentence.describe(error)
            throw IndexError(.failed, "searching the local index for '\(LocalQuery.printable(query.raw))' failed: \(reason)", underlying: error)
        }
    }

    /// Where a media sorts: its entry's BM25 (lower is better) then newest first. A cursor is
    /// the position of the last media of a page.
    struct Position: Sendable {
        var score: Double
        var id: Int64

        var token: String { "\(score)/\(id)" }

        init(score: Double, id: Int64) {
            self.score = score
            self.id = id
        }

        init?(token: String) {
            let parts = token.split(separator: "/")
            guard parts.count == 2, let score = Double(parts[0]), score.isFinite, let id = Int64(parts[1]) else { return nil }
            self.init(score: score, id: id)
        }
    }

    /// A site, kind and size together, and how many distinct media (before filters) have their
    /// matching entries in it alone.
    struct Cell: Sendable {
        var site: String
        var kind: String
        var size: String
        var count: Int
    }

    /// One considered match: its row id, BM25 score (0 without words), cell number (-1 if it
    /// has none) and media key (``MediaKey``; the id negated for an entry without one).
    struct Match {
        var id: Int64
        var score: Double
        var cell: Int64
        var key: Int64
    }

    /// The considered matches' distinct media, by where their entries are: from it the total and
    /// every facet are counted without reading the matches again. Almost every media has its
    /// entries in one cell (its pages are of one site), and those are counts per cell: at most a
    /// few dozen rows. A media found on pages of several sites is listed with its cells.
    struct Cube {
        /// The media whose matching entries are all in one cell, counted per cell.
        var cells: [Cell] = []
        /// Each media with matching entries in several cells: those cells.
        var spread: [[Cell]] = []
        /// No two considered matches are entries of one media (then ranking need not collapse them).
        var keysAreDistinct = true

        init(of matches: [Match], cells names: [Int64: (site: String, kind: String, size: String)]) {
            // Each media's one cell, or `several` and its cells in `cellsOf`: one table lookup per
            // match, the usual case.
            let several = Int64.min
            var cellOf = MediaKeyTable(capacity: matches.count)
            var cellsOf: [Int64: [Int64]] = [:]
            for match in matches {
                let (slot, isNew) = cellOf.slot(for: match.key)
                if isNew {
                    cellOf.setValue(match.cell, at: slot)
                    continue
                }
                keysAreDistinct = false
                let before = cellOf.values[slot]
                if before == match.cell { continue }
                if before == several {
                    if cellsOf[match.key]?.contains(match.cell) == false { cellsOf[match.key]?.append(match.cell) }
                } else {
                    cellOf.setValue(several, at: slot)
                    cellsOf[match.key] = [before, match.cell]
                }
            }
            // Cells are numbered from 1, a few dozen of them: counted in an array, not a
            // dictionary hashing each of thousands of matches.
            let numbers = names.keys.max() ?? 0
            var counts = [Int](repeating: 0, count: Int(numbers) + 1)
            cellOf.forEachValue { cell in
                if cell > 0, cell <= numbers { counts[Int(cell)] += 1 }
            }
            func named(_ cell: Int64, _ count: Int) -> Cell? {
                names[cell].map { Cell(site: $0.site, kind: $0.kind, size: $0.size, count: count) }
            }
            self.cells = counts.indices.compactMap { counts[$0] > 0 ? named(Int64($0), counts[$0]) : nil }
            spread = cellsOf.values.map { $0.compactMap { named($0, 1) } }
        }

        /// Distinct media with an entry the filters allow.
        func total(_ query: LocalQuery) -> Int {
            cells.reduce(0) { query.allows($1) ? $0 + $1.count : $0 } + spread.count { $0.contains(where: query.allows) }
        }

        /// Counts per site, kind and size: each facet with every filter but its own applied, each
        /// value counting the distinct media with an entry under it.
        func facets(_ query: LocalQuery) -> Facets {
            var site: [String: Int] = [:], kind: [String: Int] = [:], size: [String: Int] = [:]
            func count(_ cell: Cell, _ media: Int) {
                let inSite = query.sites.isEmpty || query.sites.contains(cell.site)
                let inKind = query.kinds.isEmpty || query.kinds.contains(cell.kind)
                let inSize = query.sizes.isEmpty || query.sizes.contains(cell.size)
                if inKind && inSize { site[cell.site, default: 0] += media }
                if inSite && inSize { kind[cell.kind, default: 0] += media }
                if inSite && inKind { size[cell.size, default: 0] += media }
            }
            for cell in cells { count(cell, cell.count) }
            for media in spread {
                // Once per value, however many of its cells share that value.
                var sites = Set<String>(), kinds = Set<String>(), sizes = Set<String>()
                for cell in media {
                    let inSite = query.sites.isEmpty || query.sites.contains(cell.site)
                    let inKind = query.kinds.isEmpty || query.kinds.contains(cell.kind)
                    let inSize = query.sizes.isEmpty || query.sizes.contains(cell.size)
                    if inKind && inSize { sites.insert(cell.site) }
                    if inSite && inSize { kinds.insert(cell.kind) }
                    if inSite && inKind { sizes.insert(cell.size) }
                }
                for value in sites { site[value, default: 0] += 1 }
                for value in kinds { kind[value, default: 0] += 1 }
                for value in sizes { size[value, default: 0] += 1 }
            }
            func counts(_ table: [String: Int]) -> [Facets.Count] {
                table.map { Facets.Count(value: $0.key, count: $0.value) }
                    .sorted { $0.count != $1.count ? $0.count > $1.count : $0.value < $1.value }
            }
            return Facets(site: counts(site), kind: counts(kind), size: counts(size))
        }
    }

    /// The matches a search considers, the ``countLimit`` newest, each with its score, cell and key,
    /// from one walk of FTS5's matches. FTS5 walks a term's matches in row order at
    /// little cost per match, but a prefix with no prefix index of its length (`shai*`) merges
    /// every matching term's list at each walk, and the search walked four times (facets, rank,
    /// "more?", and once per media for highlights); what costs per match on top (BM25 reads the
    /// match's column sizes, facets its cell) is paid once here, and capping the set caps it.
    /// Counting, filtering and ranking these few thousand is then plain Swift.
    /// - Returns: the matches, newest first, and whether more matches exist beyond them.
    private static func considered(_ query: LocalQuery, cap: Int?, db: Database) throws -> (matches: [Match], capped: Bool) {
        // One more than the cap: its presence says there are more (SQLite: a negative limit is none).
        let limit = cap.map { $0 + 1 } ?? -1
        // The probe filters read `media`'s columns: the rest of the search needs only
        // `media_cell`, so only a query with one of them joins `media` (before the cap: the
        // newest entries that pass them are the ones considered).
        var probe: [String] = []
        if let animated = query.animated { probe.append("x.animated = \(animated ? 1 : 0)") }
        if query.minDurationSeconds != nil { probe.append("x.durationSeconds >= ?") }
        let sql: String
        switch (query.match != nil, probe.isEmpty) {
        case (true, true):
            sql = """
                SELECT f.id, f.score, coalesce(m.cell, -1), coalesce(m.urlKey, -f.id) FROM (
                    SELECT rowid AS id, bm25(media_fts, \(IndexSchema.bm25Weights)) AS score FROM media_fts
                    WHERE media_fts MATCH ? ORDER BY rowid DESC LIMIT \(limit)
                ) f LEFT JOIN media_cell m ON m.id = f.id ORDER BY f.id DESC
                """
        case (true, false):
            sql = """
                SELECT media_fts.rowid, bm25(media_fts, \(IndexSchema.bm25Weights)), coalesce(m.cell, -1), coalesce(m.urlKey, -media_fts.rowid)
                FROM media_fts JOIN media x ON x.id = media_fts.rowid LEFT JOIN media_cell m ON m.id = media_fts.rowid
                WHERE media_fts MATCH ? AND \(probe.joined(separator: " AND ")) ORDER BY media_fts.rowid DESC LIMIT \(limit)
                """
        case (false, true):
            sql = "SELECT id, 0.0, cell, urlKey FROM media_cell ORDER BY id DESC LIMIT \(limit)"
        case (false, false):
            sql = """
                SELECT c.id, 0.0, c.cell, c.urlKey FROM media_cell c JOIN media x ON x.id = c.id
                WHERE \(probe.joined(separator: " AND ")) ORDER BY c.id DESC LIMIT \(limit)
                """
        }
        let statement = InPlaceStatement(try db.cachedStatement(sql: sql), in: db)
        var parameter: Int32 = 1
        if let match = query.match {
            try statement.bind(parameter, match)
            parameter += 1
        }
        if let seconds = query.minDurationSeconds { try statement.bind(parameter, seconds) }
        var matches: [Match] = []
        matches.reserveCapacity(min(cap ?? 1024, 1 << 16) + 1)
        try statement.forEachRow { row in
            matches.append(Match(id: row.int64(0), score: row.double(1), cell: row.int64(2), key: row.int64(3)))
        }
        guard let cap, matches.count > cap else { return (matches, false) }
        matches.removeLast()
        return (matches, true)
    }

    /// The name of every cell (a few dozen rows).
    private static func cellNames(_ db: Database) throws -> [Int64: (site: String, kind: String, size: String)] {
        var names: [Int64: (site: String, kind: String, size: String)] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT id, site, kind, sizeClass FROM cell")) {
            names[row[0]] = (row[1], row[2], row[3])
        }
        return names
    }

    /// The page of considered matches after filters, in rank order: BM25, then newest first.
    /// With `collapse`, each media once, as its newest entry the filters allow (`matches` are
    /// newest first); collapsed before the cursor applies, so a media ranked on an earlier page
    /// is never on a later one.
    private static func ranked(
        _ matches: [Match], collapse: Bool, query: LocalQuery, cells: [Int64: (site: String, kind: String, size: String)],
        after: Position?, skip: Int, limit: Int
    ) -> [Position] {
        let filtered = !(query.sites.isEmpty && query.kinds.isEmpty && query.sizes.isEmpty)
        let allowed = Set(
            cells.compactMap { id, name in
                query.allows(Cell(site: name.site, kind: name.kind, size: name.size, count: 0)) ? id : nil
            })
        var shown = MediaKeyTable(capacity: collapse ? matches.count : 0)
        var kept: [Match] = []
        kept.reserveCapacity(matches.count)
        for match in matches {
            if filtered, !allowed.contains(match.cell) { continue }
            if collapse, !shown.insert(match.key) { continue }
            if let after, !(match.score > after.score || (match.score == after.score && match.id < after.id)) { continue }
            kept.append(match)
        }
        kept.sort { $0.score != $1.score ? $0.score < $1.score : $0.id > $1.id }
        return kept.dropFirst(skip).prefix(limit).map { Position(score: $0.score, id: $0.id) }
    }

    /// The stored media of a page of matches, in order, each with its highlighted title.
    private static func media(for ids: [Int64], query: LocalQuery, db: Database) throws -> [Media] {
        guard !ids.isEmpty else { return [] }
        let marks = databaseQuestionMarks(count: ids.count)
        var stored: [Int64: Media] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, json FROM media WHERE id IN (\(marks))", arguments: StatementArguments(ids)) {
            stored[row[0]] = try MediaRecord.decode(row[1] as Data)
        }
        var highlights: [Int64: String] = [:]
        if let match = query.match {
            // One walk over the matches between the page's first and last id, the page's ids
            // kept by a filter (`+rowid`: not a constraint FTS5 sees). As `rowid IN (…)`, SQLite
            // ran the match once per id, and a prefix without its own index merged every
            // matching term's list each time (~0.5 ms an id at 200 000 rows).
            let sql = """
                SELECT rowid, highlight(media_fts, 0, char(2), char(3)) FROM media_fts
                WHERE media_fts MATCH ? AND rowid BETWEEN ? AND ? AND +rowid IN (\(marks))
                """
            let arguments: [any DatabaseValueConvertible] = [match, ids.min() ?? 0, ids.max() ?? 0]
            for row in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments + ids.map { $0 as any DatabaseValueConvertible })) {
                if let marked: String = row[1] { highlights[row[0]] = Highlight.html(marked) }
            }
        }
        return ids.compactMap { id in
            guard var media = stored[id] else { return nil }
            media.highlight = highlights[id]
            return media
        }
    }
}

extension LocalQuery {
    func allows(_ cell: MediaIndex.Cell) -> Bool {
        (sites.isEmpty || sites.contains(cell.site)) && (kinds.isEmpty || kinds.contains(cell.kind))
            && (sizes.isEmpty || sizes.contains(cell.size))
    }
}

/// Turns FTS5's marked title into HTML: the text escaped, matches in `<mark>`.
enum Highlight {
    static func html(_ marked: String) -> String {
        var html = ""
        html.reserveCapacity(marked.utf8.count + 16)
        for character in marked {
            switch character {
            case "\u{2}": html += "<mark>"
            case "\u{3}": html += "</mark>"
            case "&": html += "&amp;"
            case "<": html += "&lt;"
            case ">": html += "&gt;"
            case "\"": html += "&quot;"
            default: html.append(character)
            }
        }
        return html
    }
}
