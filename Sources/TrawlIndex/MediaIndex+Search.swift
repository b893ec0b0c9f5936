import Foundation
import GRDB
import TrawlCore

/// One page of a `!local` search.
public struct LocalPage: Sendable {
    public var media: [Media]
    /// Matches after filters, in all; when ``totalIsLowerBound``, among the
    /// ``MediaIndex/countLimit`` newest matches only.
    public var total: Int
    /// `true` when the words match more than ``MediaIndex/countLimit`` media: the search then
    /// counts, facets and ranks only the newest ``MediaIndex/countLimit`` of them, so ``total``
    /// and the facet counts are lower bounds ("5 000+") and an older match may be left out.
    public var totalIsLowerBound: Bool
    public var facets: Facets
    /// Where the next page starts; `nil` on the last.
    public var next: Pagination?
}

extension MediaIndex {
    /// The most a page holds.
    public static let maxLimit = 500

    /// The most matches a search counts, facets and ranks: the newest this many. A word in a
    /// tenth of a million titles would otherwise cost a BM25 score and a facet lookup for each
    /// of its 100 000 matches (~400 ms); capped, a search costs at most ~3 µs per considered
    /// match (issue 19).
    public static let countLimit = 5_000

    /// Searches the index: matches ranked by BM25 (title weighted most), ties broken newest
    /// first; without words, everything the filters allow, newest first. Only the
    /// ``countLimit`` newest matches are considered (``LocalPage/totalIsLowerBound`` says when
    /// there were more).
    ///
    /// - Parameters:
    ///   - pagination: `.offset(n)` jumps to the n-th match; `.cursor` (from a ``LocalPage/next``)
    ///     goes on after the last match of the page before.
    ///   - limit: matches per page (1…``maxLimit``).
    ///   - countLimit: how many of the newest matches to consider (``countLimit`` by default);
    ///     `nil` considers every match, exactly, at a cost that grows with their number.
    /// - Throws: ``IndexError/Code/invalidQuery`` for a cursor that is not this index's or a
    ///   query FTS5 refuses (the message names the query, never SQL).
    public func search(_ query: LocalQuery, pagination: Pagination = .start, limit: Int = 25, countLimit: Int? = MediaIndex.countLimit) async throws -> LocalPage {
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
                throw IndexError(.invalidQuery, "'\(LocalQuery.printable(token))' is not a cursor of the local index (query '\(LocalQuery.printable(query.raw))')")
            }
            after = position
            skip = 0
        }
        do {
            return try await pool.read { db in
                let (matches, capped) = try Self.considered(query, cap: cap, db: db)
                let cells = try Self.cellNames(db)
                let cube = Self.cube(of: matches, cells: cells)
                var ranked = Self.ranked(matches, query: query, cells: cells, after: after, skip: skip, limit: limit + 1)
                let more = ranked.count > limit
                if more { ranked.removeLast() }
                let next = more ? ranked.last.map { Pagination.cursor($0.token) } : nil
                return LocalPage(
                    media: try Self.media(for: ranked.map(\.id), query: query, db: db),
                    total: cube.filter { query.allows($0) }.reduce(0) { $0 + $1.count }, totalIsLowerBound: capped,
                    facets: Self.facets(of: cube, query: query), next: next)
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

    /// Where a match sorts: BM25 (lower is better) then newest first. A cursor is the position of
    /// the last match of a page.
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

    /// How many matches (before filters) have each site, kind and size together: at most a few
    /// dozen rows, from which totals and every facet are counted without reading matches again.
    struct Cell: Sendable {
        var site: String
        var kind: String
        var size: String
        var count: Int
    }

    /// One considered match: its row id, BM25 score (0 without words) and cell number (-1 if it
    /// has none).
    struct Match {
        var id: Int64
        var score: Double
        var cell: Int64
    }

    /// The matches a search considers, the ``countLimit`` newest, each with its score and cell,
    /// from one walk of FTS5's matches (issue 19). FTS5 walks a term's matches in row order at
    /// little cost per match, but a prefix with no prefix index of its length (`shai*`) merges
    /// every matching term's list at each walk, and the search walked four times (facets, rank,
    /// "more?", and once per media for highlights); what costs per match on top (BM25 reads the
    /// match's column sizes, facets its cell) is paid once here, and capping the set caps it.
    /// Counting, filtering and ranking these few thousand is then plain Swift.
    /// - Returns: the matches, newest first, and whether more matches exist beyond them.
    private static func considered(_ query: LocalQuery, cap: Int?, db: Database) throws -> (matches: [Match], capped: Bool) {
        // One more than the cap: its presence says there are more (SQLite: a negative limit is none).
        let limit = cap.map { $0 + 1 } ?? -1
        let sql: String
        if query.match != nil {
            sql = """
                SELECT f.id, f.score, coalesce(m.cell, -1) FROM (
                    SELECT rowid AS id, bm25(media_fts, \(IndexSchema.bm25Weights)) AS score FROM media_fts
                    WHERE media_fts MATCH ? ORDER BY rowid DESC LIMIT \(limit)
                ) f LEFT JOIN media_cell m ON m.id = f.id ORDER BY f.id DESC
                """
        } else {
            sql = "SELECT id, 0.0, cell FROM media_cell ORDER BY id DESC LIMIT \(limit)"
        }
        let statement = InPlaceStatement(try db.cachedStatement(sql: sql), in: db)
        if let match = query.match { try statement.bind(1, match) }
        var matches: [Match] = []
        matches.reserveCapacity(min(cap ?? 1024, 1 << 16) + 1)
        try statement.forEachRow { row in
            matches.append(Match(id: row.int64(0), score: row.double(1), cell: row.int64(2)))
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

    /// The cube of the considered matches: how many have each (site, kind, size).
    private static func cube(of matches: [Match], cells: [Int64: (site: String, kind: String, size: String)]) -> [Cell] {
        var counts: [Int64: Int] = [:]
        for match in matches { counts[match.cell, default: 0] += 1 }
        return counts.compactMap { cell, count in
            cells[cell].map { Cell(site: $0.site, kind: $0.kind, size: $0.size, count: count) }
        }
    }

    /// The page of considered matches after filters, in rank order: BM25, then newest first.
    private static func ranked(
        _ matches: [Match], query: LocalQuery, cells: [Int64: (site: String, kind: String, size: String)],
        after: Position?, skip: Int, limit: Int
    ) -> [Position] {
        let filtered = !(query.sites.isEmpty && query.kinds.isEmpty && query.sizes.isEmpty)
        let allowed = Set(cells.compactMap { id, name in
            query.allows(Cell(site: name.site, kind: name.kind, size: name.size, count: 0)) ? id : nil
        })
        var kept = matches.filter { match in
            if filtered, !allowed.contains(match.cell) { return false }
            guard let after else { return true }
            return match.score > after.score || (match.score == after.score && match.id < after.id)
        }
        kept.sort { $0.score != $1.score ? $0.score < $1.score : $0.id > $1.id }
        return kept.dropFirst(skip).prefix(limit).map { Position(score: $0.score, id: $0.id) }
    }

    /// Counts per site, kind and size: each facet with every filter but its own applied.
    private static func facets(of cube: [Cell], query: LocalQuery) -> Facets {
        var site: [String: Int] = [:], kind: [String: Int] = [:], size: [String: Int] = [:]
        for cell in cube {
            let inSite = query.sites.isEmpty || query.sites.contains(cell.site)
            let inKind = query.kinds.isEmpty || query.kinds.contains(cell.kind)
            let inSize = query.sizes.isEmpty || query.sizes.contains(cell.size)
            if inKind && inSize { site[cell.site, default: 0] += cell.count }
            if inSite && inSize { kind[cell.kind, default: 0] += cell.count }
            if inSite && inKind { size[cell.size, default: 0] += cell.count }
        }
        func counts(_ table: [String: Int]) -> [Facets.Count] {
            table.map { Facets.Count(value: $0.key, count: $0.value) }
                .sorted { $0.count != $1.count ? $0.count > $1.count : $0.value < $1.value }
        }
        return Facets(site: counts(site), kind: counts(kind), size: counts(size))
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
