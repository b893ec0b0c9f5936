import Foundation
import GRDB
import TrawlCore

/// One page of a `!local` search.
public struct LocalPage: Sendable {
    public var media: [Media]
    /// Matches after filters, in all.
    public var total: Int
    public var facets: Facets
    /// Where the next page starts; `nil` on the last.
    public var next: Pagination?
}

extension MediaIndex {
    /// The most a page holds.
    public static let maxLimit = 500

    /// Searches the index: matches ranked by BM25 (title weighted most), ties broken newest
    /// first; without words, everything the filters allow, newest first.
    ///
    /// - Parameters:
    ///   - pagination: `.offset(n)` jumps to the n-th match; `.cursor` (from a ``LocalPage/next``)
    ///     goes on after the last match of the page before.
    ///   - limit: matches per page (1…``maxLimit``).
    /// - Throws: ``IndexError/Code/invalidQuery`` for a cursor that is not this index's or a
    ///   query FTS5 refuses (the message names the query, never SQL).
    public func search(_ query: LocalQuery, pagination: Pagination = .start, limit: Int = 25) async throws -> LocalPage {
        let limit = min(max(limit, 1), Self.maxLimit)
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
                let candidates = try Self.candidates(query, db: db)
                let facets = Self.facets(of: candidates, query: query)
                var matches = candidates.filter { query.allows($0) }
                matches.sort()
                let total = matches.count
                var start = min(skip, total)
                if let after { start = matches.firstIndex(where: { after < $0.position }) ?? total }
                let page = Array(matches[start ..< min(start + limit, total)])
                let next = start + page.count < total ? page.last.map { Pagination.cursor($0.position.token) } : nil
                return LocalPage(media: try Self.media(for: page, query: query, db: db), total: total, facets: facets, next: next)
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
    struct Position: Comparable, Sendable {
        var score: Double
        var id: Int64

        static func < (a: Position, b: Position) -> Bool {
            a.score != b.score ? a.score < b.score : a.id > b.id
        }

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

    /// One match before filters: what facets and ranking read.
    struct Candidate: Comparable, Sendable {
        var position: Position
        var site: String
        var kind: String
        var size: String

        static func < (a: Candidate, b: Candidate) -> Bool { a.position < b.position }
    }

    private static func candidates(_ query: LocalQuery, db: Database) throws -> [Candidate] {
        let rows: RowCursor
        if let match = query.match {
            rows = try Row.fetchCursor(db, sql: """
                SELECT m.id, m.site, m.kind, m.sizeClass, bm25(media_fts, \(IndexSchema.bm25Weights)) AS score
                FROM media_fts JOIN media m ON m.id = media_fts.rowid
                WHERE media_fts MATCH ?
                """, arguments: [match])
        } else {
            rows = try Row.fetchCursor(db, sql: "SELECT id, site, kind, sizeClass, 0.0 AS score FROM media")
        }
        var candidates: [Candidate] = []
        while let row = try rows.next() {
            candidates.append(Candidate(
                position: Position(score: row[4], id: row[0]), site: row[1], kind: row[2], size: row[3]))
        }
        return candidates
    }

    /// Counts per site, kind and size: each facet with every filter but its own applied.
    private static func facets(of candidates: [Candidate], query: LocalQuery) -> Facets {
        var site: [String: Int] = [:], kind: [String: Int] = [:], size: [String: Int] = [:]
        for candidate in candidates {
            let inSite = query.sites.isEmpty || query.sites.contains(candidate.site)
            let inKind = query.kinds.isEmpty || query.kinds.contains(candidate.kind)
            let inSize = query.sizes.isEmpty || query.sizes.contains(candidate.size)
            if inKind && inSize { site[candidate.site, default: 0] += 1 }
            if inSite && inSize { kind[candidate.kind, default: 0] += 1 }
            if inSite && inKind { size[candidate.size, default: 0] += 1 }
        }
        func counts(_ table: [String: Int]) -> [Facets.Count] {
            table.map { Facets.Count(value: $0.key, count: $0.value) }
                .sorted { $0.count != $1.count ? $0.count > $1.count : $0.value < $1.value }
        }
        return Facets(site: counts(site), kind: counts(kind), size: counts(size))
    }

    /// The stored media of a page of matches, in order, each with its highlighted title.
    private static func media(for page: [Candidate], query: LocalQuery, db: Database) throws -> [Media] {
        guard !page.isEmpty else { return [] }
        let ids = page.map(\.position.id)
        let marks = databaseQuestionMarks(count: ids.count)
        var stored: [Int64: Media] = [:]
        let decoder = JSONDecoder()
        for row in try Row.fetchAll(db, sql: "SELECT id, json FROM media WHERE id IN (\(marks))", arguments: StatementArguments(ids)) {
            stored[row[0]] = try decoder.decode(Media.self, from: row[1] as Data)
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
    func allows(_ candidate: MediaIndex.Candidate) -> Bool {
        (sites.isEmpty || sites.contains(candidate.site)) && (kinds.isEmpty || kinds.contains(candidate.kind))
            && (sizes.isEmpty || sizes.contains(candidate.size))
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
