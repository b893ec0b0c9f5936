import Foundation
import Testing
import TrawlRecordings
import TrawlSmoke
import TrawlTesting

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The real `trawl smoke` process over the repository's cases.
@Suite("trawl smoke, the command", .timeLimit(.minutes(5)), .tags(.process))
struct SmokeCommandTests {
    static let repository = Corpus.repositoryRoot.appendingPathComponent("Recordings")

    /// The `trawl` executable built beside this test bundle.
    static var trawlBinary: URL? { CommandRun.builtExecutable("trawl") }

    /// Runs `trawl` with `arguments`, without search keys in its environment: its exit status and output.
    func trawl(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let binary = try #require(Self.trawlBinary, "the trawl executable is built beside the tests")
        var environment = ProcessInfo.processInfo.environment
        environment["TRAWL_GIPHY_KEY"] = nil
        environment["TRAWL_TENOR_KEY"] = nil
        let run = try await CommandRun.run(binary, arguments, environment: environment)
        return (run.status, Self.caseLines(run.stdout))
    }

    /// Piped, `trawl smoke` prints one JSON object per case: read back as `STATUS NAME — WHY`
    /// lines (what a terminal shows); anything else (help text) as it is.
    static func caseLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.hasPrefix("{"), let result = try? JSONDecoder().decode(SmokeResult.self, from: Data(line.utf8)) else { return String(line) }
            let why = result.explanation.joined(separator: "; ")
            return "\(result.status.rawValue) \(result.name)\(why.isEmpty ? "" : "  — " + why)"
        }.joined(separator: "\n")
    }

    /// A live run with the network made unreachable: every connection goes to a loopback port
    /// nobody listens on. Every case is skipped, the run exits 4, and all three reports say so.
    @Test func aLiveRunWithNoNetworkSkipsEveryCaseExitsFourAndWritesItsReports() async throws {
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let port = refusing.port
        let reports = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-smoke-offline-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: reports) }
        let cases = try RecordedCase.all(in: Self.repository)
        let live = cases.filter { !$0.recordingCase.synthetic }
        #expect(Set(live.map(\.site)) == Set(cases.map(\.site)), "a live case on every site")
        #expect(
            Set(live.map(\.site)).isSuperset(of: [
                "9gag", "bluesky", "fediverse", "generic", "giphy", "imgur", "pinterest", "reddit", "redgifs", "streamable", "tenor", "threads",
                "tiktok", "tumblr", "x",
            ]))

        let (status, output) = try await trawl([
            "smoke", "--recordings", Self.repository.path, "--connect-to", "::127.0.0.1:\(port)",
            "--retries", "0", "--timeout", "10", "--report-dir", reports.path,
        ])
        #expect(status == SmokeReport.nothingChecked, "\(output)")
        let caseLines = output.split(separator: "\n").filter { line in live.contains { line.contains(" \($0.name)") } }
        #expect(caseLines.count == live.count && caseLines.allSatisfy { $0.hasPrefix("skipped") }, "\(output)")

        // JSON: every live case, skipped, and why.
        let report = try JSONDecoder().decode(SmokeReport.self, from: Data(contentsOf: reports.appendingPathComponent("report.json")))
        #expect(report.results.map(\.name).sorted() == live.map(\.name).sorted())
        #expect(report.results.allSatisfy { $0.status == .skipped })
        for result in report.results {
            let reason = result.reasons.joined()
            if result.input.hasPrefix("!giphy") {
                #expect(reason.contains("TRAWL_GIPHY_KEY"), "\(result.name): \(reason)")
            } else if result.input.hasPrefix("!tenor") {
                #expect(reason.contains("TRAWL_TENOR_KEY"), "\(result.name): \(reason)")
            } else {
                #expect(reason.hasPrefix("site unreachable"), "\(result.name): \(reason)")
            }
        }

        // JUnit: one testcase per case, each <skipped> with its message, no failure.
        let junit = try String(contentsOf: reports.appendingPathComponent("junit.xml"), encoding: .utf8)
        let document = try XMLDocument(data: Data(junit.utf8))
        #expect(try document.nodes(forXPath: "//testcase").count == live.count)
        #expect(try document.nodes(forXPath: "//testcase/skipped[@message]").count == live.count)
        #expect(try document.nodes(forXPath: "//failure").isEmpty)
        #expect(junit.contains(#"skipped="\#(live.count)""#))

        // HTML: the banner, and every case row skipped.
        let html = try String(contentsOf: reports.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.contains("Nothing was checked: every case was skipped."))
        #expect(html.components(separatedBy: #"class="skipped">skipped"#).count - 1 >= live.count)
        #expect(!html.contains(#"class="pass">"#) && !html.contains(#"class="fail">"#))
    }

    /// The replayed repository: synthetic cases pass, live cases without recordings are skipped
    /// by name, and no line calls a passing case degraded.
    @Test func aReplayedRunPassesAndNoPassReadsAsDegraded() async throws {
        let (status, output) = try await trawl(["smoke", "--replay", "--recordings", Self.repository.path])
        #expect(status == 0, "\(output)")
        let lines = output.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("pass") && $0.contains("giphy/gif-page-drift") })
        #expect(!lines.contains { $0.hasPrefix("pass") && $0.localizedCaseInsensitiveContains("degraded") }, "\(output)")
        #expect(lines.filter { $0.hasPrefix("skipped") }.allSatisfy { $0.contains("no recording yet") }, "\(output)")
    }

    /// `--probe` checks live media: with `--replay` (recordings hold pages, not media) it is a
    /// usage error, as `--probe-renditions` without `--probe` is.
    @Test func probeIsLiveOnly() async throws {
        #expect(try await trawl(["smoke", "--replay", "--probe", "--recordings", Self.repository.path]).status == 2)
        #expect(try await trawl(["smoke", "--probe-renditions", "--recordings", Self.repository.path]).status == 2)
    }

    @Test func theHelpDocumentsTheExitCodes() async throws {
        let (_, output) = try await trawl(["smoke", "--help"])
        let flowed = output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flowed.contains("4 nothing was checked, every case was skipped"), "\(output)")
        #expect(flowed.contains("2 usage error"), "\(output)")
    }
}
