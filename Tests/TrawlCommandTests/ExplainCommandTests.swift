import Foundation
import Testing
import TrawlTesting

/// `trawl resolve --explain`: each media's rule and evidence, and what was dropped, in the table
/// and in JSON.
@Suite("resolve --explain", .timeLimit(.minutes(2)), .tags(.process))
struct ExplainCommandTests {
    static func page() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-explain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("post.html")
        try Data(
            """
            <html><body><article><img src="https://cdn.blog.example/u/cat-skates.gif" width="480" height="270"></article>
            <img src="https://cdn.blog.example/static/store/takeover.gif"></body></html>
            """.utf8
        ).write(to: file)
        return file
    }

    @Test func theTableSaysWhyUnderEachRow() async throws {
        let file = try Self.page()
        let binary = try #require(CommandRun.builtExecutable("trawl"))
        let run = try await CommandRun.run(binary, ["resolve", "--explain", "--table", file.absoluteString])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("kept by declared-size: shown in the markup; in the main content; declared 480×270"), "\(run.stdout)")
        #expect(run.stdout.contains("dropped  https://cdn.blog.example/static/store/takeover.gif"), "\(run.stdout)")
        #expect(run.stdout.contains("dropped by no-evidence-beyond-extension"), "\(run.stdout)")
    }

    @Test func jsonCarriesEvidenceAndExplanationAndMarksTheDropped() async throws {
        let file = try Self.page()
        let binary = try #require(CommandRun.builtExecutable("trawl"))
        let run = try await CommandRun.run(binary, ["resolve", "--explain", "--json", file.absoluteString])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try run.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let verdicts = lines.compactMap { ($0["explanation"] as? [String: Any])?["verdict"] as? String }
        #expect(verdicts == ["kept", "dropped"], "\(run.stdout)")
        #expect((lines.first?["evidence"] as? [String])?.first == "shown in the markup")
        // Without --explain, neither field is there and the dropped candidate is not printed.
        let plain = try await CommandRun.run(binary, ["resolve", "--json", file.absoluteString])
        #expect(plain.lines.count == 1)
        #expect(!plain.stdout.contains("evidence") && !plain.stdout.contains("explanation"))
    }
}
