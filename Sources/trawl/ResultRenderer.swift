import Foundation
import Trawl
import TrawlCore

/// Turns one input's result sets into the lines its output format prints.
struct ResultRenderer {
    let format: OutputFormat
    /// The input as printed: secrets redacted.
    let input: String
    private var printedSet = false
    private var printedKind: PageKind?

    /// - Parameter input: what the user gave; printed with its secrets redacted.
    init(format: OutputFormat, input: String) {
        self.format = format
        self.input = Redaction.text(input)
    }

    /// The lines for one result set as it arrives: a table prints its heading with the first
    /// media and each set's rows as they come (a rendered page's XHR media before its DOM's).
    mutating func lines(for set: ResultSet) -> [String] {
        switch format {
        case .table:
            let dropped = set.dropped ?? []
            guard !set.media.isEmpty || !dropped.isEmpty else { return [] }
            defer { printedSet = true }
            // With --explain, what the page is, when a set first says it or says otherwise.
            var kindLine: [String] = []
            if let kind = (set.media + dropped).first(where: { $0.explanation != nil })?.pageKind, kind != printedKind {
                printedKind = kind
                kindLine = ["  page: \(kind)"]
            }
            return (printedSet ? [] : [input, Self.row(Self.header)]) + kindLine
                + set.media.flatMap { [Self.row(Self.cells($0))] + Self.explanation(of: $0) }
                + dropped.flatMap { ["  dropped  \($0.url)"] + Self.explanation(of: $0) }
        case .jsonLines:
            // Dropped candidates print as lines of their own, marked by their explanation.
            return (set.media + (set.dropped ?? [])).map { TrawlJSON.line(MediaLine($0, of: set, input: input)) }
        case .stream:
            printedSet = true
            return [TrawlJSON.line(ResultSetLine(set, input: input))]
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
            return [TrawlJSON.line(line)]
        case .table:
            var lines = printedSet ? [] : [input]
            if let next { lines.append("  next: \(next.token)") }
            return lines
        }
    }

    private static let header = ["KIND", "SIZE", "TIME", "PARSER", "URL", "TITLE"]
    /// Fixed widths (a longer cell pushes the rest of its row): rows print as their set arrives,
    /// before the longest cell is known.
    private static let widths = [5, 9, 6, 14, 72]

    private static func cells(_ media: Media) -> [String] {
        // Probed, the real size and kind; a dead one (kept with --keep-dead) says so.
        let width = media.probe?.width ?? media.width
        let height = media.probe?.height ?? media.height
        let size = width.map { w in "\(w)x\(height.map(String.init) ?? "?")" } ?? "-"
        let kind = media.probe?.dead == true ? "dead" : media.kind.rawValue
        // The probe's measure first, as for the size: what the file says over what the page said.
        let time = (media.probe?.durationSeconds ?? media.durationSeconds).map(Self.time) ?? "-"
        return [kind, size, time, media.provenance.parser, media.url, media.title ?? ""]
    }

    /// A running time as the table prints it: `8.4s`, `12s`, `2m05s`.
    static func time(_ seconds: Double) -> String {
        if seconds >= 60 {
            let whole = Int(seconds.rounded())
            return "\(whole / 60)m" + (whole % 60 < 10 ? "0" : "") + "\(whole % 60)s"
        }
        let tenths = (seconds * 10).rounded() / 10
        return tenths == tenths.rounded() ? "\(Int(tenths))s" : String(format: "%.1fs", tenths)
    }

    /// With `--explain`, the line under a media that says why: the rule, then the evidence.
    private static func explanation(of media: Media) -> [String] {
        guard let explanation = media.explanation else { return [] }
        let evidence = (media.evidence ?? []).joined(separator: "; ")
        return ["      \(explanation.verdict.rawValue) by \(explanation.rule)\(evidence.isEmpty ? "" : ": " + evidence)"]
    }

    private static func row(_ cells: [String]) -> String {
        let padded = cells.indices.map { column -> String in
            let cell = cells[column]
            guard column < widths.count else { return cell }
            return cell.padding(toLength: max(widths[column], cell.count), withPad: " ", startingAt: 0)
        }
        return "  " + padded.joined(separator: "  ")
    }
}
