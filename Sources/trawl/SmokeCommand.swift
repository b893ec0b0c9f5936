import ArgumentParser
import Foundation
import Trawl
import TrawlSmoke

/// `trawl smoke`: runs every case against the live sites (or replayed) and says which site
/// changed.
struct SmokeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "smoke",
        abstract: "Run the recorded cases against the live sites: pass, degraded, fail or skipped per case and site.",
        discussion: """
            Live cases (every case not marked synthetic) go to the real sites; synthetic cases only replay (--replay). Each case is pass, degraded, fail or skipped (site unreachable or down after --retries, a search key not set, or when replaying a live case with no recording yet). On a terminal a line per case and a summary; otherwise one JSON object per case. Reports are written whatever the exit code. --record rewrites (or first writes) the recordings of cases that passed live; other cases keep theirs. --probe checks each media a live case finds with a ranged GET and fails a case with a dead one.

            Exit codes: 0 every case checked passed (some may have been skipped); 1 failing cases, or degraded ones with --fail-on degraded (the default); 2 usage error (no report is written); 3 the run could not go on; 4 nothing was checked, every case was skipped (no network, every site down).
            """)

    @Option(help: "Only these sites (comma-separated folder names in Recordings/).")
    var sites: String?

    @Flag(help: "Replay the recordings instead of going live (offline).")
    var replay = false

    @Flag(help: "Rewrite the recordings of cases that passed live.")
    var record = false

    @Option(help: "The recordings folder.")
    var recordings: String = "Recordings"

    @Option(help: "Write report.html, report.json and junit.xml into this folder.")
    var reportDir: String?

    @Option(help: "Write a JUnit XML report here.")
    var junit: String?

    @Option(help: "Write a JSON report here.")
    var json: String?

    @Option(help: "Write a self-contained HTML report here.")
    var html: String?

    @Option(help: "Append this run to a history file (JSON lines); the HTML report shows the last runs.")
    var history: String?

    @OptionGroup
    var connection: ConnectionOptions

    @Option(help: "Extra attempts for a case whose site looks down.")
    var retries: Int = 1

    @Option(help: "What makes the exit status non-zero: degraded or fail.")
    var failOn: FailOn = .degraded

    @OptionGroup(title: "Browser")
    var browser: BrowserOptions

    @OptionGroup(title: "Address guard")
    var address: AddressOptions

    @OptionGroup(title: "Local index")
    var index: IndexOptions

    @Flag(
        help: "Check each media a live case finds with one ranged GET for its first 64 KiB; a case with a dead media (404, 410, a page instead of media) fails."
    )
    var probe = false

    @Flag(help: "With --probe: probe every rendition too (a dead rendition fails the case as well).")
    var probeRenditions = false

    enum FailOn: String, ExpressibleByArgument { case degraded, fail }

    func validate() throws {
        if replay && record { throw ValidationError("--record refreshes recordings from live runs; it cannot be used with --replay") }
        try address.validateOptIn()
        if retries < 0 { throw ValidationError("--retries must be 0 or more") }
        if probe, replay {
            throw ValidationError("--probe checks what live media URLs answer; it cannot be used with --replay (recordings hold pages, not media)")
        }
        if probeRenditions, !probe { throw ValidationError("--probe-renditions needs --probe") }
    }

    func run() async throws {
        var options = SmokeOptions(search: SearchKeys.fromEnvironment())
        options.sites = Set((sites ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty })
        options.replay = replay
        options.record = record
        options.timeout = connection.requestTimeout
        options.userAgent = connection.userAgent
        options.retries = retries
        options.connectTo = connection.connectTo
        options.plainHTTP = connection.plainHTTP
        options.browser = browser.browser
        options.addressPolicy = try address.policy()
        options.browserConfiguration = browser.configuration
        if probe {
            var probing = MediaProber.Options()
            probing.renditions = probeRenditions
            options.probe = probing
        }
        // Live runs record what they find; replays are the recordings themselves and leave no trace.
        let opened = replay ? nil : index.open(recording: true, command: "smoke")
        options.sink = opened?.writer
        guard FileManager.default.fileExists(atPath: recordings) else {
            throw ValidationError("no recordings folder at '\(recordings)'; run from the repository's top folder or pass --recordings")
        }
        let results: [SmokeResult]
        do {
            results = try await SmokeRunner(options: options).run(recordings: URL(fileURLWithPath: recordings))
        } catch {
            await opened?.close()
            throw error
        }
        await opened?.close()
        guard !results.isEmpty else {
            throw ValidationError(
                "no cases\(sites.map { " for sites \($0)" } ?? "") in \(recordings)"
                    + (replay ? "" : " that run live (synthetic cases only replay: add --replay, or add live cases, see Recordings/README.md)"))
        }
        let report = SmokeReport(results: results)
        let summary =
            "sites: " + report.sites.map { "\($0.site) \($0.status.rawValue)" }.joined(separator: ", ")
            + "\ncases: " + SmokeStatus.allCases.map { "\(report.counts[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", ")
        if isatty(STDOUT_FILENO) != 0 {
            for result in results {
                let why = result.explanation.joined(separator: "; ")
                print("\(result.status.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)) \(result.name)\(why.isEmpty ? "" : "  — " + why)")
            }
            print("\n" + summary)
        } else {
            // Piped: one JSON object per case for scripts; the summary goes to the log.
            for result in results { print(TrawlJSON.line(result)) }
            Diagnostics.write(summary)
        }

        let past = history.map { SmokeReport.history(at: URL(fileURLWithPath: $0)) } ?? []
        var outputs: [(String, Data)] = []
        if let dir = reportDir {
            outputs += [
                ("\(dir)/report.html", Data(report.html(history: past).utf8)), ("\(dir)/report.json", try report.json()),
                ("\(dir)/junit.xml", Data(report.junit().utf8)),
            ]
        }
        if let junit { outputs.append((junit, Data(report.junit().utf8))) }
        if let json { outputs.append((json, try report.json())) }
        if let html { outputs.append((html, Data(report.html(history: past).utf8))) }
        for (path, data) in outputs {
            let file = URL(fileURLWithPath: path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: file, options: .atomic)
        }
        if let history { try report.append(toHistory: URL(fileURLWithPath: history)) }
        if report.checkedNothing {
            FileHandle.standardError.write(Data("trawl smoke: nothing was checked, every case was skipped (no network? every site down?)\n".utf8))
        }
        throw ExitCode(report.exitStatus(failOn: failOn == .degraded ? .degraded : .fail))
    }
}
