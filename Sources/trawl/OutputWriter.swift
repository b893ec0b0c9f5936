import Foundation
import Trawl
import TrawlCore

/// Prints results as a table, JSON lines per media, or JSON lines per result set.
final class OutputWriter {
    enum Mode { case table, jsonLines, stream }
    let mode: Mode
    private var pending: [Media] = []
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    init(mode: Mode) { self.mode = mode }

    func write(_ set: ResultSet, input: String) {
        switch mode {
        case .table:
            pending += set.media
        case .jsonLines:
            for media in set.media { emit(MediaLine(media, input: input, degraded: set.degradation?.description)) }
        case .stream:
            emit(ResultSetLine(set, input: input))
        }
    }

    /// Ends one input: the table prints here.
    func flush(input: String, next: Pagination?) {
        guard mode == .table else { return }
        defer { pending = [] }
        print("\(input)")
        guard !pending.isEmpty else { return }
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
            print("  " + cells.joined(separator: "  "))
        }
        if let next { print("  next: \(next.token)") }
    }

    private func emit(_ value: some Encodable) {
        guard let data = try? encoder.encode(value) else { return }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}

/// One result set as `--stream` prints it.
struct ResultSetLine: Encodable {
    var input: String
    var media: [MediaLine]
    var total: Int?
    var next: String?
    var parser: String?
    var origin: String?
    var degraded: String?
    var diagnostics: [String]

    init(_ set: ResultSet, input: String) {
        self.input = input
        media = set.media.map { MediaLine($0, input: input, degraded: nil) }
        total = set.total
        next = set.next?.token
        parser = set.provenance?.parser
        origin = set.provenance?.origin.description
        degraded = set.degradation?.description
        diagnostics = set.diagnostics.map(\.description)
    }
}
