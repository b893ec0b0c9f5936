import ArgumentParser
import Foundation
import Trawl
import TrawlCore
import TrawlRecordings

/// `trawl demo`: the main job with no network. Replays every case in `Recordings/` through
/// the whole pipeline, prints each GIF list, and checks it against the case.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Resolve every recorded case in Recordings/ from its recording (no network needed).",
        discussion: """
            On a terminal, each case's verdict and its GIF list (kind, size, URL; the first \(shownMedia)); otherwise one JSON object per case (case, input, verdict, reasons, media). Exit codes: 0 every case as expected, 1 some case not, 2 usage error, 3 the recordings could not be read.
            """)

    @Option(help: "The recordings folder.")
    var recordings: String = "Recordings"

    @Flag(help: "One JSON object per case (the default when the output is not a terminal).")
    var json = false

    @Flag(help: "Tables even when the output is not a terminal.")
    var table = false

    func validate() throws {
        if json && table { throw ValidationError("--json and --table are exclusive") }
    }

    func run() async throws {
        let folder = URL(fileURLWithPath: recordings)
        guard FileManager.default.fileExists(atPath: folder.path) else {
            throw ValidationError("no recordings folder at '\(folder.path)'; run from the repository's top folder or pass --recordings")
        }
        let cases = try RecordedCase.all(in: folder)
        guard !cases.isEmpty else {
            throw ValidationError("no cases in '\(folder.path)'; run from the repository's top folder or pass --recordings")
        }
        let format = OutputFormat.choose(json: json, stream: false, table: table)
        var failed: [(name: String, verdict: CaseVerdict, warnings: [String])] = []
        var notRecorded: [String] = []
        for recorded in cases {
            guard recorded.hasRecording else {
                // A live case not recorded yet: nothing to replay.
                notRecorded.append(recorded.name)
                continue
            }
            let run = await CaseRun(recorded)
            let input = recorded.recordingCase.input
            if run.verdict.outcome == .fail { failed.append((recorded.name, run.verdict, run.warnings)) }
            if format == .table {
                // A case that needs a browser was replayed through Chromium, its requests answered from the HAR.
                let rendered = run.media.contains { $0.provenance.origin.isRendered } ? " (rendered offline in Chromium)" : ""
                print("\(symbol(run.verdict.outcome)) \(recorded.name): \(run.verdict)\(rendered)")
                if run.verdict.outcome == .fail { for warning in run.warnings { print("  " + Redaction.text(warning)) } }
                print("  " + Redaction.text(input))
                for line in Self.mediaList(run.media) { print(line) }
                print("")
            } else {
                print(TrawlJSON.line(CaseLine(run, input: input)))
            }
        }
        if format == .table {
            let replayed = cases.count - notRecorded.count
            print(
                "\(replayed - failed.count) of \(Counted(replayed, "case")) as expected"
                    + (failed.isEmpty ? "" : "; failing: " + failed.map(\.name).joined(separator: ", ")))
            if !notRecorded.isEmpty {
                print("skipped \(Counted(notRecorded.count, "live case")) with no recording yet: " + notRecorded.joined(separator: ", "))
            }
        } else if !failed.isEmpty {
            // The JSON lines carry each failure, but a log's tail (a CI job's) may show only the
            // last cases: the failing ones are named again where a reader of the tail sees them.
            Diagnostics.write("trawl demo: \(failed.count) of \(Counted(cases.count - notRecorded.count, "case")) failed")
            for failure in failed {
                Diagnostics.write("  \(failure.name): \(failure.verdict)" + failure.warnings.map { "; \($0)" }.joined())
            }
        }
        throw ExitCode(failed.isEmpty ? ExitStatus.found.rawValue : ExitStatus.nothingFound.rawValue)
    }

    /// The most media rows a case shows on a terminal; the rest are counted.
    static let shownMedia = 8

    /// A case's media, one short row each: kind, size, URL (the first ``shownMedia``).
    static func mediaList(_ media: [Media]) -> [String] {
        var lines = media.prefix(shownMedia).map { item -> String in
            let size = item.width.map { "\($0)x\(item.height.map(String.init) ?? "?")" } ?? "-"
            return "    " + item.kind.rawValue.padding(toLength: 5, withPad: " ", startingAt: 0) + " "
                + size.padding(toLength: 9, withPad: " ", startingAt: 0) + " " + item.url
        }
        if media.count > shownMedia { lines.append("    … and \(Counted(media.count - shownMedia, "more media", plural: "more media"))") }
        if media.isEmpty { lines.append("    (no media)") }
        return lines
    }

    func symbol(_ outcome: CaseVerdict.Outcome) -> String {
        switch outcome {
        case .pass: "✓"
        case .degraded: "~"
        case .fail: "✗"
        }
    }

    /// One case as `trawl demo` prints it when piped.
    struct CaseLine: Encodable {
        var `case`: String
        var input: String
        var verdict: String
        var reasons: [String]
        var media: [MediaLine]
        var error: ErrorSummary?

        init(_ run: CaseRun, input: String) {
            `case` = run.recordedCase.name
            self.input = input
            verdict = run.verdict.outcome.rawValue
            reasons = run.verdict.reasons
            media = run.sets.flatMap { set in set.media.map { MediaLine($0, of: set, input: input) } }
            error = run.error.map(ErrorSummary.init)
        }
    }
}
