import Foundation
import Testing
import Trawl
import TrawlCore
import TrawlRecordings
import TrawlSmoke
import TrawlTesting

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The live path of `trawl smoke`, against a loopback *fake internet*: a server that answers
/// for the sites' real hostnames (through `--connect-to` and plain HTTP) from the recordings,
/// changed on purpose per test.
@Suite("Smoke run against a fake internet", .timeLimit(.minutes(5)))
struct SmokeTests {
    static let repository = Corpus.repositoryRoot.appendingPathComponent("Recordings")
    /// Real-looking cases, copied as live (not synthetic) cases into a temporary folder.
    static let liveCases = ["x/status-animated-gif", "tenor/view-page", "reddit/post-reddit-video"]

    /// A temporary recordings folder holding `liveCases`, marked live.
    func recordings() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-smoke-\(UUID().uuidString)")
        for name in Self.liveCases {
            let source = RecordedCase.files(named: name, in: Self.repository)
            let target = RecordedCase.files(named: name, in: folder)
            try FileManager.default.createDirectory(at: target.archive.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: source.archive, to: target.archive)
            var recordingCase = try RecordingCase.read(from: source.caseFile)
            recordingCase.synthetic = false
            try recordingCase.write(to: target.caseFile)
        }
        return folder
    }

    /// Serves every recorded entry under `folder` by the request's host and target, with
    /// `change` applied to the body (per host); 404 for the rest.
    func fakeInternet(_ folder: URL, status: Int = 200, change: @escaping @Sendable (String, String) -> String = { _, body in body }) throws -> LoopbackServer {
        let replay = try ReplayTransport(path: folder)
        return try LoopbackServer { request in
            guard status == 200 else { return .status(status) }
            let host = (request.header("host") ?? "").split(separator: ":").first.map(String.init) ?? ""
            guard let url = URL(string: "https://\(host)\(request.target)"),
                let payload = try? replay.payload(for: FetchRequest(url: url))
            else { return .status(404) }
            let body = change(host, String(decoding: payload.body, as: UTF8.self))
            return .ok(headers: [("Content-Type", payload.info.headers["Content-Type"] ?? "application/octet-stream")], body: Data(body.utf8))
        }
    }

    func options(_ server: LoopbackServer?, port: Int? = nil, record: Bool = false) -> SmokeOptions {
        var options = SmokeOptions()
        options.plainHTTP = true
        options.connectTo = ["::127.0.0.1:\(port ?? server!.port)"]
        options.timeout = .seconds(20)
        options.retries = 1
        options.record = record
        return options
    }

    func byName(_ results: [SmokeResult]) -> [String: SmokeResult] {
        Dictionary(uniqueKeysWithValues: results.map { ($0.name, $0) })
    }

    @Test func unchangedSitesPassAndRecordRefreshesThem() async throws {
        let folder = try recordings()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try fakeInternet(folder)
        defer { server.shutdown() }
        let results = try await SmokeRunner(options: options(server, record: true)).run(recordings: folder)
        #expect(results.map(\.status) == [.pass, .pass, .pass], "\(results.map { "\($0.name): \($0.reasons)" })")
        #expect(results.allSatisfy { $0.rerecorded })
        let refreshed = try HAR.read(from: RecordedCase.files(named: "x/status-animated-gif", in: folder).archive)
        #expect(refreshed.log.comment?.hasPrefix("trawl smoke --record") == true)
        #expect(HARValidator.problems(in: try refreshed.encoded()).isEmpty)
        #expect(SmokeReport(results: results).exitStatus(failOn: .degraded) == 0)
    }

    @Test func aRenamedKeyIsDegradedAMissingMediaFailsAndOnlyPassesAreRerecorded() async throws {
        let folder = try recordings()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try fakeInternet(folder) { host, body in
            switch host {
            case "cdn.syndication.twimg.com": body.replacingOccurrences(of: "mediaDetails", with: "media_v2")  // degraded
            case "www.reddit.com":
                body.replacingOccurrences(of: "https://v.redd.it/trwlv01/DASH_720.mp4?source=fallback", with: "")
                    .replacingOccurrences(of: "\"is_video\": true", with: "\"is_video\": false")  // media removed: fail
            default: body
            }
        }
        defer { server.shutdown() }
        let before = try Data(contentsOf: RecordedCase.files(named: "reddit/post-reddit-video", in: folder).archive)
        let results = byName(try await SmokeRunner(options: options(server, record: true)).run(recordings: folder))
        let x = try #require(results["x/status-animated-gif"])
        #expect(x.status == .degraded)
        #expect(x.reasons.joined().contains("x-tweet"))
        #expect(x.vanished.contains { $0.hasPrefix("$.mediaDetails") }, "\(x.vanished)")
        let reddit = try #require(results["reddit/post-reddit-video"])
        #expect(reddit.status == .fail)
        #expect(reddit.reasons.contains { $0.contains("missing") || $0.contains("results") })
        #expect(results["tenor/view-page"]?.status == .pass)
        // Only the passing case was re-recorded; the others keep their recordings.
        #expect(results["tenor/view-page"]?.rerecorded == true)
        #expect(x.rerecorded == false && reddit.rerecorded == false)
        #expect(try Data(contentsOf: RecordedCase.files(named: "reddit/post-reddit-video", in: folder).archive) == before)

        let report = SmokeReport(results: Array(results.values).sorted { $0.name < $1.name })
        #expect(report.exitStatus(failOn: .degraded) == 1)
        #expect(SmokeReport(results: [x]).exitStatus(failOn: .degraded) == 1)
        #expect(SmokeReport(results: [x]).exitStatus(failOn: .fail) == 0)
        let junit = report.junit()
        let document = try XMLDocument(data: Data(junit.utf8))
        #expect(try document.nodes(forXPath: "//testcase").count == 3)
        #expect(try document.nodes(forXPath: "//failure[@type='fail']").count == 1)
        #expect(try document.nodes(forXPath: "//failure[@type='degraded']").count == 1)
        // Thumbnails: the stills of what was found, linked to the media.
        let html = report.html()
        #expect(html.contains(#"<a href="https://media.tenor.com/"#) && html.contains("<img loading=\"lazy\""))
    }

    @Test func refusedConnectionsAndServerErrorsAreSkipped() async throws {
        let folder = try recordings()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A port nobody listens on (held, so no other test's server can take it): every connection is refused.
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let port = refusing.port
        var refused = options(nil, port: port)
        refused.sites = ["tenor"]
        let down = try await SmokeRunner(options: refused).run(recordings: folder)
        #expect(down.map(\.status) == [.skipped])
        #expect(down.first?.attempts == 2)

        let failing = try fakeInternet(folder, status: 500)
        defer { failing.shutdown() }
        var errors = options(failing)
        errors.sites = ["tenor"]
        let five = try await SmokeRunner(options: errors).run(recordings: folder)
        #expect(five.map(\.status) == [.skipped], "\(five.map(\.reasons))")
        #expect(five.first?.attempts == 2)
        #expect(failing.requests.count == 2)
        // Nothing was checked: the documented code for that, not a green 0.
        #expect(SmokeReport(results: five).exitStatus(failOn: .degraded) == SmokeReport.nothingChecked)
        #expect(five.first?.reasons.first?.hasPrefix("site down: HTTP 500") == true, "\(five.map(\.reasons))")
        #expect(down.first?.reasons.first?.hasPrefix("site unreachable: connection failed") == true, "\(down.map(\.reasons))")
    }

    /// Every case of the repository replayed; its browser cases start Chromium.
    @Test(.tags(.browser)) func replayOfTheRepository() async throws {
        var options = SmokeOptions()
        options.replay = true
        let results = try await SmokeRunner(options: options).run(recordings: Self.repository)
        let cases = try RecordedCase.all(in: Self.repository)
        #expect(results.count == cases.count)
        let liveOnly = Set(cases.filter { !$0.hasRecording }.map(\.name))
        for result in results {
            if liveOnly.contains(result.name) {
                // Not a replay case: skipped by name, not failed.
                #expect(result.status == .skipped && result.reasons.first?.hasPrefix("no recording yet") == true, "\(result.name)")
            } else {
                #expect(result.status == .pass, "\(result.name): \(result.reasons)")
            }
        }
    }

    /// A drift case passes because its fallback answered, as it expects: the report says pass
    /// and only pass for it (no reason calling it degraded), and no pass anywhere carries reasons.
    @Test(.tags(.browser)) func aPassIsNeverAlsoCalledDegraded() async throws {
        var options = SmokeOptions()
        options.replay = true
        options.sites = ["giphy", "x"]
        let results = try await SmokeRunner(options: options).run(recordings: Self.repository)
        let drift = try #require(results.first { $0.name == "giphy/gif-page-drift" })
        #expect(drift.status == .pass)
        #expect(drift.reasons.isEmpty)
        #expect(drift.notes.first?.hasPrefix("drift case:") == true, "\(drift.notes)")
        for result in results where result.status == .pass {
            #expect(result.reasons.isEmpty, "\(result.name): \(result.reasons)")
            #expect(!result.explanation.joined().localizedCaseInsensitiveContains("degraded"), "\(result.name): \(result.explanation)")
        }
        let report = SmokeReport(results: results)
        #expect(report.counts.values.reduce(0, +) == results.count)
        // The live cases were skipped (no recording): each site is what its checked cases are.
        #expect(results.contains { $0.status == .skipped })
        #expect(report.sites.map { "\($0.site) \($0.status.rawValue)" } == ["giphy pass", "x pass"])
        // One row per case in the HTML, with one status.
        let html = report.html()
        let row = html.components(separatedBy: "<tr><td>giphy/gif-page-drift<br>")
        #expect(row.count == 2)
        let cells = row.last?.components(separatedBy: "</tr>").first ?? ""
        #expect(cells.contains(#"class="pass">pass"#) && !cells.localizedCaseInsensitiveContains("degraded"), "\(cells)")
    }
}
