import Foundation
import Trawl
import TrawlCore

/// Turns one input's result sets into the lines its output format prints.
struct ResultRenderer {
    let format: OutputFormat
    let input: String
    private var pending: [Media] = []
    private var printedSet = false

    init(format: OutputFormat, input: String) {
        self.format = format
        self.input = input
    }

    /// The lines for one result set as it arrives (a table waits for ``finish(next:error:)``).
    mutating func lines(for set: ResultSet) -> [String] {
        switch format {
        case .table:
            pending += set.media
            return []
        case .jsonLines:
            return set.media.map { JSONLine.encode(MediaLine($0, of: set, input: input)) }
        case .stream:
            printedSet = true
            return [JSONLine.encode(ResultSetLine(set, input: input))]
        }
    }

    /// The lines that end the input: the table, or with `--stream` a line for an input that
    /// printed no result set (no media, or an error), so every input has at least one line.
    mutating func finish(next: Pagination?, error: (any Error)?) -> [String] {
        switch format {
        case .jsonLines:
            return []
        case .stream:
            guard !printedSet || error != nil else { return [] }
            var line = ResultSetLine(ResultSet(), input: input)
            line.error = error.map(ErrorSummary.init)
            return [JSONLine.encode(line)]
        case .table:
            defer { pending = [] }
            return table(next: next)
        }
    }

    private func table(next: Pagination?) -> [String] {
        var lines = [input]
        guard !pending.isEmpty else { return lines }
        let rows = pending.map { media -> [String] in
            let size = media.width.map { w in "\(w)x\(media.height.map(String.init) ?? "?")" } ?? "-"
            return [media.kind.rawValue, size, media.provenance.parser, media.url, media.title ?? ""]
        }
        let header = ["KIND", "SIZE", "PARSER", "URL", "TITLE"]
        let widths = header.indices.map { column in
            min(column == 3 ? 110 : 40, ([header] + rows).map { $0[column].count }.max() ?? 0)
        }
        for row in [header] + rows {
            let cells = row.indices.map { column -> String in
                let cell = row[column]
                return column == row.count - 1 ? cell : cell.padding(toLength: max(widths[column], cell.count), withPad: " ", startingAt: 0)
            }
            lines.append("  " + cells.joined(separator: "  "))
        }
        if let next { lines.append("  next: \(next.token)") }
        return lines
    }
}
