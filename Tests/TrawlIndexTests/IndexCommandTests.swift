import Foundation
import Testing
import TrawlTesting

/// `trawl resolve` recording into the index, `!local` searching it, `trawl index …`: the
/// command as a user meets it, each test with an index file of its own.
@Suite("trawl and the local index", .timeLimit(.minutes(5)), .tags(.process))
struct IndexCommandTests {
    let folder: URL
    let index: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-index-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        index = folder.appendingPathComponent("index.sqlite").path
    }

    func trawl(_ arguments: [String], environment: [String: String]? = nil) async throws -> CommandRun {
        let binary = try #require(CommandRun.builtExecutable("trawl"), "the trawl executable is built beside the tests")
        var base = environment ?? ProcessInfo.processInfo.environment
        for key in ["TRAWL_GIPHY_KEY", "TRAWL_TENOR_KEY", "TRAWL_DEFAULT_ENGINE"] { base[key] = nil }
        return try await CommandRun.run(binary, arguments, environment: base, in: folder)
    }

    func json(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
    }

    /// A page with two clips, written for these tests.
    func page(_ name: String, titles: [String]) throws -> URL {
        let url = folder.appendingPathComponent(name)
        let videos = titles.enumerated().map { n, title in
            #"<figure><video src="https://media.example.com/\#(name)-\#(n).mp4" width="480" height="270" title="\#(title)"></video><figcaption>\#(title)</figcaption></figure>"#
        }.joined()
        try Data(
            """
            <!doctype html><html><head><title>\(titles.first ?? "")</title>
            <meta property="og:title" content="\(titles.first ?? "")">
            <meta property="og:video:url" content="https://media.example.com/\(name)-0.mp4">
            <meta property="og:video:type" content="video/mp4">
            <meta property="og:video:width" content="480"><meta property="og:video:height" content="270">
            </head><body>\(videos)</body></html>
            """.utf8
        ).write(to: url)
        return url
    }

    @Test("What resolve finds, !local finds again: facets on the set, highlights on each media")
    func resolveThenSearch() async throws {
        let clip = try page("clip.html", titles: ["A cat typing"])
        let resolved = try await trawl(["resolve", clip.path, "--json", "--index", index])
        #expect(resolved.status == 0, "\(resolved.stderr)")

        let search = try await trawl(["resolve", "!local cat typ*", "--stream", "--index", index])
        #expect(search.status == 0, "\(search.stderr)")
        let set = try json(try #require(search.lines.first))
        let facets = try #require(set["facets"] as? [String: Any])
        let kinds = try #require(facets["kind"] as? [[String: Any]])
        #expect(kinds.first?["value"] as? String == "mp4")
        #expect((set["total"] as? Int ?? 0) >= 1)
        let media = try #require((set["media"] as? [[String: Any]])?.first)
        #expect(media["highlight"] as? String == "A <mark>cat</mark> <mark>typing</mark>")
        #expect(media["url"] as? String == "https://media.example.com/clip.html-0.mp4")

        // JSON lines carry the highlight; other commands' output has no new fields.
        let lines = try await trawl(["resolve", "!local cat", "--json", "--index", index])
        #expect(try json(try #require(lines.lines.first))["highlight"] as? String == "A <mark>cat</mark> typing")
        #expect(try json(try #require(resolved.lines.first))["highlight"] == nil)

        // Filters that exclude it: nothing found, exit 1.
        let none = try await trawl(["resolve", "!local cat site:giphy", "--json", "--index", index])
        #expect(none.status == 1)
    }

    @Test("Re-resolving a page replaces its entries")
    func replaceOnReresolve() async throws {
        let url = try page("page.html", titles: ["Old title dog"])
        #expect(try await trawl(["resolve", url.path, "--json", "--index", index]).status == 0)
        _ = try page("page.html", titles: ["New title bird"])
        #expect(try await trawl(["resolve", url.path, "--json", "--index", index]).status == 0)
        #expect(try await trawl(["resolve", "!local dog", "--json", "--index", index]).status == 1)
        let bird = try await trawl(["resolve", "!local bird", "--json", "--index", index])
        #expect(bird.status == 0)
        #expect(bird.lines.count == 1)
    }

    @Test("A query that cannot be read is a usage error naming it, with no SQL in sight")
    func badQuery() async throws {
        for text in ["!local \"cat", "!local cat OR", "!local kind:jpeg"] {
            let run = try await trawl(["resolve", text, "--index", index])
            #expect(run.status == 2, "\(text): \(run.stderr)")
            #expect(run.stderr.contains(text), "\(run.stderr)")
            #expect(!run.stderr.lowercased().contains("sql"), "\(run.stderr)")
        }
    }

    @Test("--no-index records nothing and has no !local; replays record nothing")
    func noIndex() async throws {
        let clip = try page("clip.html", titles: ["A cat typing"])
        let run = try await trawl(["resolve", clip.path, "--json", "--no-index"])
        #expect(run.status == 0)
        let search = try await trawl(["resolve", "!local cat", "--no-index"])
        #expect(search.status == 2, "an engine that is not there is a usage error")
        #expect(search.stderr.contains("unknown engine '!local'"), "\(search.stderr)")

        let recording = ResolveRecordings.blogPost
        let replay = try await trawl(["resolve", recording.input, "--replay", recording.archive, "--json", "--index", index])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(!replay.lines.isEmpty)
        let stats = try json(try #require(try await trawl(["index", "stats", "--json", "--index", index]).lines.first))
        #expect(stats["media"] as? Int == 0)
    }

    @Test("a replay of URLs alone never opens the index; a replayed !local search does")
    func replayOpensTheIndexOnlyToSearchIt() async throws {
        let recording = ResolveRecordings.blogPost
        let replay = try await trawl(["resolve", recording.input, "--replay", recording.archive, "--json", "--index", index])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(!FileManager.default.fileExists(atPath: index), "a replayed URL created the index file")

        let search = try await trawl(["resolve", "!local cat", "--replay", recording.archive, "--index", index])
        #expect(search.status == 1, "\(search.stderr)")
        #expect(FileManager.default.fileExists(atPath: index))
    }

    @Test("index stats, prune and rebuild")
    func maintenance() async throws {
        _ = try await trawl(["resolve", try page("a.html", titles: ["cat one", "cat two"]).path, "--json", "--index", index])
        let stats = try json(try #require(try await trawl(["index", "stats", "--json", "--index", index]).lines.first))
        #expect(stats["pages"] as? Int == 1)
        #expect((stats["media"] as? Int ?? 0) >= 1)
        #expect(stats["pending"] as? Int == 0)
        let text = try await trawl(["index", "stats", "--index", index])
        #expect(text.stdout.contains("media:"))

        #expect(try await trawl(["index", "rebuild", "--index", index]).status == 0)
        #expect(try await trawl(["resolve", "!local cat", "--json", "--index", index]).status == 0)

        let bad = try await trawl(["index", "prune", "--older-than", "soon", "--index", index])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("soon"))
        let kept = try await trawl(["index", "prune", "--older-than", "1d", "--index", index])
        #expect(kept.status == 0)
        #expect(try await trawl(["resolve", "!local cat", "--json", "--index", index]).status == 0)
        let pruned = try await trawl(["index", "prune", "--older-than", "0s", "--index", index])
        #expect(pruned.status == 0, "\(pruned.stderr)")
        #expect(try await trawl(["resolve", "!local cat", "--json", "--index", index]).status == 1)
    }

    @Test("A corrupt index file is set aside with a warning; the run goes on")
    func corruptFile() async throws {
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: index))
        let clip = try page("clip.html", titles: ["A cat typing"])
        let run = try await trawl(["resolve", clip.path, "--json", "--index", index])
        #expect(run.status == 0)
        #expect(run.stderr.contains("warning: the index"), "\(run.stderr)")
        #expect(run.stderr.contains("corrupt"), "\(run.stderr)")
        #expect(try await trawl(["resolve", "!local cat", "--json", "--index", index]).status == 0)
    }

    @Test("Without --index the index is under XDG_DATA_HOME")
    func defaultPath() async throws {
        let data = folder.appendingPathComponent("data")
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = data.path
        _ = try await trawl(["resolve", try page("clip.html", titles: ["A cat typing"]).path, "--json"], environment: environment)
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("trawl/index.sqlite").path))
    }
}

/// A recorded case to replay (the repository's own recordings).
enum ResolveRecordings {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var blogPost: (input: String, archive: String) {
        let base = repository.appendingPathComponent("Recordings/generic/blog-post-with-gifs")
        let input = (try? JSONSerialization.jsonObject(with: Data(contentsOf: base.appendingPathExtension("case.json"))) as? [String: Any])?["input"] as? String
        return (input ?? "missing input in blog-post-with-gifs.case.json", base.appendingPathExtension("har").path)
    }
}
