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
                throw IndexError(.invalidQuery, "'\(token)' is not a cursor of the local index (query '\(query.raw)')")
            }
            after = position
            skip = 0
        }
        do {
            return try await pool.read { db in
                let (cube, capped) = try Self.cube(query, cap: cap, db: db)
                var ranked = try Self.ranked(query, cap: cap, after: after, skip: skip, limit: limit + 1, db: db)
                let more = ranked.count > limit
                if more { ranked.removeLast() }
                let next = more ? ranked.last.map { Pagination.cursor($0.token) } : nil
                return LocalPage(
                    media: try Self.media(for: ranked.map(\.id), query: query, db: db),
                    total: cube.filter { query.allows($0) }.reduce(0) { $0 + $1.count }, totalIsLowerBound: capped,
                    facets: Self.facets(of: cube, query: query), next: next)
            }
        } catch let error as DatabaseError where error.message?.contains("fts5") == true || error.message?.contains("syntax") == true {
            throw IndexError(.invalidQuery, "the local index cannot read the query '\(query.raw)'", underlying: error)
        } catch let error as IndexError {
            throw error
        } catch {
            throw IndexError(.failed, "searching the index \(path) for '\(query.raw)' failed: \(error)", underlying: error)
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

    /// The matches a search considers, as SQL yielding `id` (and, with `scored`, `score`): the
    /// ``countLimit`` newest. FTS5 walks a term's matches in row order at little cost per match;
    /// what costs is per match work on top (BM25 reads each match's column sizes, facets join
    /// its cell), so capping the set caps the work whatever the word.
    private static func considered(_ query: LocalQuery, scored: Bool, cap: Int?) -> (sql: String, arguments: [any DatabaseValueConvertible]) {
        let limit = cap ?? -1  // SQLite: a negative limit is none
        if let match = query.match {
            let score = scored ? ", bm25(media_fts, \(IndexSchema.bm25Weights)) AS score" : ""
            return ("SELECT rowid AS id\(score) FROM media_fts WHERE media_fts MATCH ? ORDER BY rowid DESC LIMIT \(limit)", [match])
        }
        return ("SELECT id\(scored ? ", 0.0 AS score" : "") FROM media_cell ORDER BY id DESC LIMIT \(limit)", [])
    }

    /// The cube of the considered matches, and whether more matches exist beyond them.
    private static func cube(_ query: LocalQuery, cap: Int?, db: Database) throws -> (cells: [Cell], capped: Bool) {
        // Counted per cell number (one small integer per match, read from the narrow
        // `media_cell`) and only then named: grouping by the three text columns sorted every match.
        let (matches, arguments) = considered(query, scored: false, cap: cap)
        let cells = try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT c.site, c.kind, c.sizeClass, t.n FROM (
                    SELECT m.cell, count(*) AS n FROM (\(matches)) f JOIN media_cell m ON m.id = f.id GROUP BY m.cell
                ) t JOIN cell c ON c.id = t.cell
                """),
            arguments: StatementArguments(arguments)
        ).map { Cell(site: $0[0], kind: $0[1], size: $0[2], count: $0[3]) }
        guard let cap, cells.reduce(0, { $0 + $1.count }) >= cap else { return (cells, false) }
        // As many as the cap: is there one more? (Row ids only: no join, no score.)
        let beyond: String
        if query.match != nil {
            beyond = "SELECT EXISTS (SELECT 1 FROM media_fts WHERE media_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET \(cap))"
        } else {
            beyond = "SELECT EXISTS (SELECT 1 FROM media_cell ORDER BY id DESC LIMIT 1 OFFSET \(cap))"
        }
        let more = try Bool.fetchOne(db.cachedStatement(sql: beyond), arguments: StatementArguments(arguments)) ?? false
        return (cells, more)
    }

    /// The page of considered matches after filters, in rank order, computed by SQLite. Filters
    /// are a set of cell numbers.
    private static func ranked(_ query: LocalQuery, cap: Int?, after: Position?, skip: Int, limit: Int, db: Database) throws -> [Position] {
        let (matches, matchArguments) = considered(query, scored: true, cap: cap)
        var arguments = matchArguments
        var conditions: [String] = []
        var cellConditions: [String] = []
        var cellArguments: [any DatabaseValueConvertible] = []
        for (column, values) in [("site", query.sites), ("kind", query.kinds), ("sizeClass", query.sizes)] where !values.isEmpty {
            cellConditions.append("\(column) IN (\(databaseQuestionMarks(count: values.count)))")
            cellArguments += values.sorted() as [any DatabaseValueConvertible]
        }
        let join: String
        if cellConditions.isEmpty {
            join = ""
        } else {
            join = " JOIN media_cell m ON m.id = f.id"
            conditions.append("m.cell IN (SELECT id FROM cell WHERE \(cellConditions.joined(separator: " AND ")))")
            arguments += cellArguments
        }
        if let after {
            conditions.append("(f.score > ? OR (f.score = ? AND f.id < ?))")
            arguments += [after.score, after.score, after.id] as [any DatabaseValueConvertible]
        }
        let sql = """
            SELECT f.id, f.score FROM (\(matches)) f\(join)\(conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            ORDER BY f.score, f.id DESC LIMIT ? OFFSET ?
            """
        arguments += [limit, skip] as [any DatabaseValueConvertible]
        return try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map { Position(score: $0[1], id: $0[0]) }
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
            let sql = """
                SELECT rowid, highlight(media_fts, 0, char(2), char(3)) FROM media_fts
                WHERE media_fts MATCH ? AND rowid IN (\(marks))
                """
            for row in try Row.fetchAll(db, sql: sql, arguments: StatementArguments([match] + ids.map { $0 as any DatabaseValueConvertible })) {
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
