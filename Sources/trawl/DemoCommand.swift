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
        abstract: "Resolve every recorded case in Recordings/ from its recording (no network needed).")

    @Option(help: "The recordings folder.")
    var recordings: String = "Recordings"

    @Flag(help: "One JSON object per media instead of tables.")
    var json = false

    func run() async throws {
        let folder = URL(fileURLWithPath: recordings)
        let cases: [RecordedCase]
        do {
            cases = try RecordedCase.all(in: folder)
        } catch {
            throw ValidationError("\(error)")
        }
        guard !cases.isEmpty else {
            throw ValidationError("no cases in \(folder.path); run from the repository's top folder or pass --recordings")
        }
        let output = OutputWriter(mode: json ? .jsonLines : .table)
        var failed: [String] = []
        var notRecorded: [String] = []
        for recorded in cases {
            guard recorded.hasRecording else {
                // A live case not recorded yet: nothing to replay.
                notRecorded.append(recorded.name)
                continue
            }
            let run = await Trawl.run(recorded)
            let input = recorded.recordingCase.input
            for set in run.sets { output.write(set, input: input) }
            output.flush(input: input, next: run.sets.compactMap(\.next).last)
            if run.verdict.outcome == .fail { failed.append(recorded.name) }
            if !json { print("  \(symbol(run.verdict.outcome)) \(recorded.name): \(run.verdict)\n") }
        }
        if !json {
            let replayed = cases.count - notRecorded.count
            print("\(replayed - failed.count) of \(replayed) cases as expected" + (failed.isEmpty ? "" : "; failing: " + failed.joined(separator: ", ")))
            if !notRecorded.isEmpty { print("skipped \(notRecorded.count) live cases with no recording yet: " + notRecorded.joined(separator: ", ")) }
        }
        throw ExitCode(failed.isEmpty ? 0 : 1)
    }

    func symbol(_ outcome: CaseVerdict.Outcome) -> String {
        switch outcome {
        case .pass: "✓"
        case .degraded: "~"
        case .fail: "✗"
        }
    }
}
