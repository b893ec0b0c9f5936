import Foundation
import Testing
import TrawlTesting

/// Bad input never costs found media, and no input's secret is ever printed.
@Suite("trawl with bad input", .tags(.process))
struct BadInputCommandTests {
    func trawl(_ arguments: [String], in folder: URL? = nil) async throws -> CommandRun {
        let binary = try #require(CommandRun.builtExecutable("trawl"), "the trawl executable is built beside the tests")
        var environment = ProcessInfo.processInfo.environment
        for key in ["TRAWL_GIPHY_KEY", "TRAWL_TENOR_KEY", "TRAWL_DEFAULT_ENGINE"] { environment[key] = nil }
        return try await CommandRun.run(binary, arguments, environment: environment, in: folder ?? ResolveCommandTests.repository)
    }

    func json(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
    }

    /// A page with an `og:video`, then 1 MiB of binary junk (read as windows-1252, whose
    /// undefined bytes stop libxml2's decoder), then an `<img>`.
    static func junkPage() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-junk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var page = Data(#"<!doctype html><html><head><meta property="og:video" content="https://media.example.com/clip.mp4"></head><body><p>x</p>"#.utf8)
        var state: UInt32 = 2_463_534_242
        for _ in 0..<(1 << 20) {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            page.append(UInt8(truncatingIfNeeded: state))
        }
        page += Data(#"<video src="https://media.example.com/after.mp4" width="300" height="200"></video></body></html>"#.utf8)
        let file = folder.appendingPathComponent("junk.html")
        try page.write(to: file)
        return file
    }

    @Test func aPageWithJunkAfterItsMediaKeepsThemAndSaysWhy() async throws {
        let page = try Self.junkPage()
        let run = try await trawl(["resolve", "--json", page.path])
        #expect(run.status == 0, "\(run.stderr)")
        let urls = try run.lines.map { try json($0)["url"] as? String }
        // What came before the junk, first; the video after it, found by the text fallback.
        #expect(urls.first == "https://media.example.com/clip.mp4", "\(run.stdout)")
        #expect(urls.contains("https://media.example.com/after.mp4"), "\(run.stdout)")
        #expect(!run.stderr.contains("htmlParseChunk"), "not a failure: \(run.stderr)")

        let stream = try await trawl(["resolve", "--stream", page.path])
        #expect(stream.status == 0, "\(stream.stderr)")
        let diagnostics = try stream.lines.flatMap { try json($0)["diagnostics"] as? [String] ?? [] }
        #expect(diagnostics.contains { $0.contains("htmlParseChunk") && $0.contains("read as text") }, "\(stream.stdout)")
    }

    @Test func anInputsSecretsArePrintedNowhere() async throws {
        let server = try LoopbackServer { request in
            request.path == "/clip"
                ? .html(#"<html><head><meta property="og:video" content="https://media.example.com/cat.mp4"></head></html>"#)
                : .status(404)
        }
        defer { server.shutdown() }
        let secrets = "?api_key=K3y5ecret&access_token=T0k3nSecret"
        let missing = server.url("/x").absoluteString + secrets
        let found = server.url("/clip").absoluteString + secrets
        for format in ["--json", "--stream", "--table"] {
            let run = try await trawl(["resolve", format, "--retries", "0", missing, found])
            #expect(run.status == 3, "\(run.stderr)")
            for text in [run.stdout, run.stderr] {
                #expect(!text.contains("K3y5ecret") && !text.contains("T0k3nSecret"), "\(format): \(text)")
            }
            // The input is still named, its secrets replaced.
            #expect(run.stderr.contains("/x?api_key=REDACTED&access_token=REDACTED: HTTP 404"), "\(run.stderr)")
            #expect(run.stdout.contains("/clip?api_key=REDACTED&access_token=REDACTED"), "\(format): \(run.stdout)")
        }
    }

    /// An input of a scheme no page is read from, a Windows path or a lone `-` is a usage error
    /// naming it, never a search.
    @Test(arguments: ["javascript:alert(1)", "mailto:someone@example.com", "about:blank", "view-source:https://x.example/", #"C:\Users\me\a.html"#, "-"])
    func inputsThatAreNoPageAreUsageErrors(input: String) async throws {
        let run = try await trawl(["resolve", "--browser", "never", input])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("'\(input)'"), "\(run.stderr)")
        #expect(!run.stderr.contains("tenor") && !run.stderr.contains("giphy"), "\(run.stderr)")
    }

    /// A missing input file is a usage error for every command that reads one, named once.
    @Test func aMissingListIsAUsageErrorAsAMissingPageIs() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-missing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let batch = try await trawl(["batch", "missing.txt"], in: folder)
        let resolve = try await trawl(["resolve", "missing.html"], in: folder)
        #expect(batch.status == 2 && resolve.status == 2, "\(batch.stderr)\n\(resolve.stderr)")
        #expect(batch.stderr.contains("'missing.txt': no such file"), "\(batch.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("results.sqlite").path), "no store is made for a list that is not there")
    }

    /// A blank input is named by the error alone, and a long one is shortened.
    @Test func blankAndLongInputsReadWell() async throws {
        let blank = try await trawl(["resolve", ""])
        #expect(blank.status == 2)
        #expect(blank.stderr.contains("trawl: nothing to search for in ''") && !blank.stderr.contains("trawl: :"), "\(blank.stderr)")
        // Port 1 on loopback: refused at once, nothing leaves the machine.
        let long = "http://127.0.0.1:1/" + String(repeating: "a", count: 100_000)
        let run = try await trawl(["resolve", "--browser", "never", "--timeout", "5", long])
        let line = try #require(run.stderr.split(separator: "\n").first { $0.hasPrefix("trawl: http://127.0.0.1:1/") }, "\(run.stderr.prefix(500))")
        let whole = line.contains(String(repeating: "a", count: 300))
        #expect(line.contains("…") && !whole && line.count < 1000, "the URL is not printed whole: \(line.prefix(400))")
    }

    @Test(arguments: ["htp:/broken.example.com/x", "saved-page.html", "localhost:8080/x", "pages/saved.htm", "intranet:8080/x"])
    func typosAreUsageErrorsNotSearches(input: String) async throws {
        let run = try await trawl(["resolve", input])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("'\(input)'"), "\(run.stderr)")
        #expect(!run.stderr.lowercased().contains("tenor"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test func aBareFileNameOfASavedPageReadsTheFile() async throws {
        let pages = try Pages()
        let run = try await trawl(["resolve", "--json", "clip.html"], in: pages.folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("https://media.example.com/cat.mp4"))
    }
}

/// What a new user meets first: the bare command, help, the demo's lists, messages.
@Suite("trawl as a new user meets it", .tags(.process))
struct FirstContactCommandTests {
    func trawl(_ arguments: [String]) async throws -> CommandRun {
        let binary = try #require(CommandRun.builtExecutable("trawl"), "the trawl executable is built beside the tests")
        return try await CommandRun.run(binary, arguments, in: ResolveCommandTests.repository)
    }

    @Test func trawlAloneIsAUsageError() async throws {
        let run = try await trawl([])
        #expect(run.status == 2)
        #expect(run.stderr.contains("USAGE: trawl <subcommand>"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(try await trawl(["index"]).status == 2, "a group with nothing to do is a usage error too")
        #expect(try await trawl(["--help"]).status == 0)
    }

    @Test(arguments: [["batch", "--help"], ["batch", "-h"], ["help", "batch"]])
    func batchHelpShowsWhatARunTakes(arguments: [String]) async throws {
        let run = try await trawl(arguments)
        #expect(run.status == 0, "\(run.stderr)")
        for option in ["--out", "--store", "--per-host", "--deny-private", "--browser", "--queue"] {
            #expect(run.stdout.contains(option), "\(arguments): \(option) missing from\n\(run.stdout)")
        }
        #expect(run.stdout.contains("USAGE: trawl batch [run]"))
        #expect(run.stdout.contains("status"), "the other subcommand is named")
    }

    @Test func demoOnATerminalShowsEachCasesMedia() async throws {
        // --table: what a terminal gets.
        let run = try await trawl(["demo", "--table"])
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("https://blog.trawl.example/media/bouncing-dots.gif"), "\(run.stdout)")
        #expect(run.stdout.contains("pass (1 result)"), "\(run.stdout)")
        #expect(!run.stdout.contains("(1 results)"))
        #expect(run.stdout.contains("(4 results)"))
    }
}

/// `!local` queries the index cannot read are usage errors, before or while searching.
@Suite("trawl resolve !local with queries it cannot read", .tags(.process))
struct LocalQueryCommandTests {
    @Test func unreadableLocalQueriesExit2() async throws {
        let binary = try #require(CommandRun.builtExecutable("trawl"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-local-usage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let index = folder.appendingPathComponent("index.sqlite").path
        for arguments in [["!local (cat"], ["!local \u{1}cat"], ["--page", "cursor:nope", "!local cat"]] {
            let run = try await CommandRun.run(binary, ["resolve", "--index", index] + arguments, in: folder)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(!run.stderr.contains(index) && !run.stderr.contains("SELECT"), "\(run.stderr)")
        }
        let grouped = try await CommandRun.run(binary, ["resolve", "--index", index, "!local cat (zebra OR dog)"], in: folder)
        #expect(grouped.status == 1, "read and searched, nothing found: \(grouped.stderr)")
    }
}
