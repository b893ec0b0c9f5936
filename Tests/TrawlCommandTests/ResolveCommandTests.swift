import Foundation
import Synchronization
import Testing
import TrawlTesting

/// A page with one clip, one without media, written for these tests.
struct Pages {
    let folder: URL
    let clip: URL
    let empty: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        clip = folder.appendingPathComponent("clip.html")
        empty = folder.appendingPathComponent("empty.html")
        try Data(
            """
            <!doctype html><html><head><title>A cat clip</title>
            <meta property="og:title" content="A cat clip">
            <meta property="og:video:url" content="https://media.example.com/cat.mp4">
            <meta property="og:video:type" content="video/mp4">
            <meta property="og:video:width" content="480"><meta property="og:video:height" content="270">
            </head><body><p>cat</p></body></html>
            """.utf8
        ).write(to: clip)
        try Data("<!doctype html><html><head><title>Nothing</title></head><body><p>words only</p></body></html>".utf8).write(to: empty)
    }
}

@Suite("trawl resolve on the command line", .timeLimit(.minutes(5)), .tags(.process))
struct ResolveCommandTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func trawl(_ arguments: [String], input: String? = nil) async throws -> CommandRun {
        let binary = try #require(CommandRun.builtExecutable("trawl"), "the trawl executable is built beside the tests")
        // No keys from the caller's environment: the runs must not depend on them.
        var environment = ProcessInfo.processInfo.environment
        for key in ["TRAWL_GIPHY_KEY", "TRAWL_TENOR_KEY", "TRAWL_DEFAULT_ENGINE"] { environment[key] = nil }
        return try await CommandRun.run(binary, arguments, input: input, environment: environment, in: Self.repository)
    }

    func json(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
    }

    @Test func versionAndHelp() async throws {
        let version = try await trawl(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("trawl "))
        for command in [[], ["resolve"], ["batch"], ["batch", "status"], ["record"], ["demo"], ["smoke"]] {
            let run = try await trawl(command + ["--help"])
            #expect(run.status == 0)
            #expect(run.stdout.hasPrefix("OVERVIEW:"), "trawl \(command) --help: \(run.stdout)")
        }
        let group = try await trawl(["batch", "--help"])
        #expect(group.stdout.contains("SUBCOMMANDS"))
        let help = try await trawl(["resolve", "--help"])
        #expect(help.status == 0)
        // Help paragraphs are written as one line each and wrapped once, by ArgumentParser:
        // no line of the help is a short stub left over from wrapping twice.
        let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (index, line) in lines.enumerated() where index + 1 < lines.count {
            let next = lines[index + 1]
            if !line.isEmpty, !next.isEmpty, !next.hasPrefix(" "), !line.hasPrefix(" "), line.count < 40, !line.hasSuffix(":") {
                Issue.record("help wrapped twice near: \(line) / \(next)")
            }
        }
    }

    @Test(arguments: [
        "http://exa mple.com/", "http://", "ftp://example.com/a.gif", "./no-such-page.html", "/no/such/page.html", "https://giphy.com/gifs/x funny",
    ])
    func lookalikeURLsAreUsageErrors(input: String) async throws {
        // Refused before any work: exit 2, the input named, no search engine involved.
        let run = try await trawl(["resolve", input])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains(input.split(separator: " ").first.map(String.init) ?? input), "\(run.stderr)")
        #expect(!run.stderr.contains("tenor"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test func localFilesAndFileURLsLoadThePage() async throws {
        let pages = try Pages()
        for input in [pages.clip.path, pages.clip.absoluteString] {
            let run = try await trawl(["resolve", input])
            #expect(run.status == 0, "\(run.stderr)")
            // Not a terminal: JSON Lines, one per media, with degraded as a boolean.
            let line = try json(try #require(run.lines.first))
            #expect(line["url"] as? String == "https://media.example.com/cat.mp4")
            #expect(line["degraded"] as? Bool == false)
            #expect(line["kind"] as? String == "mp4")
        }
    }

    @Test func tableOnlyWhenAskedOrOnATerminal() async throws {
        let pages = try Pages()
        let run = try await trawl(["resolve", "--table", pages.clip.path])
        #expect(run.status == 0)
        #expect(run.stdout.contains("KIND"))
        #expect(run.stdout.contains("https://media.example.com/cat.mp4"))
    }

    /// The running time a site states: a `TIME` cell in the table, `durationSeconds` in JSON.
    @Test func siteDurationInTableAndJSON() async throws {
        let input = "https://coub.com/view/trawl1cat"
        let table = try await trawl(["resolve", "--table", "--replay", "Recordings/coub/view-api.har", input])
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("TIME") && $0.contains("KIND") })
        #expect(lines.contains { $0.contains("9.9s") && $0.contains("coub-api") }, "\(table.stdout)")
        let json = try await trawl(["resolve", "--json", "--replay", "Recordings/coub/view-api.har", input])
        #expect(try self.json(try #require(json.lines.first))["durationSeconds"] as? Double == 9.92)
    }

    @Test func exitCodes() async throws {
        let pages = try Pages()
        #expect(try await trawl(["resolve", pages.empty.path]).status == 1)
        #expect(try await trawl(["resolve", pages.clip.path, pages.empty.path]).status == 1)
        let missingArchive = try await trawl(["resolve", "https://giphy.com/gifs/x", "--replay", "/no/such/archive.har"])
        #expect(missingArchive.status == 3, "a runtime failure is 3, not the usage code")
        #expect(missingArchive.stderr.contains("/no/such/archive.har"))
        #expect(!missingArchive.stderr.contains("NSCocoaErrorDomain"))
        #expect(!missingArchive.stderr.contains("Usage:"))
        let broken = pages.folder.appendingPathComponent("broken.har")
        try Data("{not json".utf8).write(to: broken)
        let brokenArchive = try await trawl(["resolve", "https://giphy.com/gifs/x", "--replay", broken.path])
        #expect(brokenArchive.status == 3)
        #expect(brokenArchive.stderr.contains("broken.har"))
        #expect(brokenArchive.stderr.contains("not valid JSON"), "\(brokenArchive.stderr)")
        #expect(try await trawl(["resolve", "--limit", "0", pages.clip.path]).status == 2)
        #expect(try await trawl(["resolve", "--no-such-option", pages.clip.path]).status == 2)
    }

    @Test func streamPrintsALineForEveryInputInInputOrder() async throws {
        let pages = try Pages()
        // The missing-page URL fails at run time (a file: URL is not checked up front).
        let missing = pages.folder.appendingPathComponent("gone.html").absoluteString
        let inputs = [pages.empty.path, pages.clip.path, missing, pages.clip.path, pages.empty.path]
        let run = try await trawl(["resolve", "--stream", "--parallel", "4"] + inputs)
        #expect(run.status == 3)
        let lines = try run.lines.map(json)
        let order = lines.map { $0["input"] as? String ?? "" }
        // Every input has at least one line; lines of one input are together, in input order.
        var grouped: [String] = []
        for input in order where grouped.last != input { grouped.append(input) }
        #expect(grouped == inputs, "\(order)")
        let failed = try #require(lines.first { $0["input"] as? String == missing })
        let error = try #require(failed["error"] as? [String: Any])
        #expect(error["code"] as? String == "file-not-found" || error["code"] as? String == "failed" || (error["code"] as? String)?.isEmpty == false)
        #expect((error["message"] as? String)?.contains("gone.html") == true)
        let empty = try #require(lines.first { $0["input"] as? String == pages.empty.path })
        #expect((empty["media"] as? [Any])?.isEmpty == true)
        #expect(empty["degraded"] as? Bool == false)
    }

    @Test func jsonKeepsTheNextTokenAndDegradation() async throws {
        let search = try await trawl(["resolve", "--json", "--replay", "Recordings/giphy", "!giphy cats"])
        #expect(search.status == 0, "\(search.stderr)")
        let first = try json(try #require(search.lines.first))
        let next = try #require(first["next"] as? String)
        let page2 = try await trawl(["resolve", "--json", "--replay", "Recordings/giphy", "--page", next, "!giphy cats"])
        #expect(page2.status == 0, "\(page2.stderr)")
        #expect(page2.lines.first != search.lines.first)

        let drift = try await trawl(["resolve", "--json", "--replay", "Recordings/giphy", "https://giphy.com/gifs/drifting-cat-TrwlDrift9"])
        #expect(drift.status == 0, "\(drift.stderr)")
        let degraded = try json(try #require(drift.lines.first))
        #expect(degraded["degraded"] as? Bool == true)
        #expect((degraded["degradedReason"] as? String)?.contains("giphy") == true)
    }
}

@Suite("trawl resolve with the browser", .timeLimit(.minutes(5)), .tags(.process, .browser))
struct ResolveBrowserCommandTests {
    @Test func aScriptBuiltPageIsRenderedAndTheLineSaysSo() async throws {
        let server = try LoopbackServer(keepsAlive: true) { request in
            switch request.path {
            case "/app":
                .html(
                    #"<html><body><div id="root"></div><script>fetch('/api').then(r => r.json()).then(d => { root.innerHTML = '<img src="' + d.gif + '" width="300" height="200">'; });</script></body></html>"#
                )
            case "/api": .json(#"{"gif":"https://media.test/built.gif"}"#)
            case "/static":
                .html(
                    #"<html><head><meta property="og:image" content="https://media.test/static.gif"></head><body><p>An article long enough to be one, not a script's empty shell: words, words and words.</p></body></html>"#
                )
            default: .status(404)
            }
        }
        defer { server.shutdown() }
        let binary = try #require(CommandRun.builtExecutable("trawl"))
        let common = ["resolve", "--connect-to", "::127.0.0.1:\(server.port)", "--plain-http", "--retries", "0"]
        let rendered = try await CommandRun.run(binary, common + ["https://site.test/app"])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        let line = try #require(try JSONSerialization.jsonObject(with: Data((rendered.lines.first ?? "").utf8)) as? [String: Any], "\(rendered.stdout)")
        #expect(line["url"] as? String == "https://media.test/built.gif")
        #expect(line["loader"] as? String == "browser")
        // Out as soon as the API answered, before the page settled: the DOM's copy adds nothing new.
        #expect(line["origin"] as? String == "xhr")
        #expect(rendered.lines.count == 1)

        let plain = try await CommandRun.run(binary, common + ["https://site.test/static"])
        let staticLine = try #require(try JSONSerialization.jsonObject(with: Data((plain.lines.first ?? "").utf8)) as? [String: Any], "\(plain.stdout)")
        #expect(staticLine["loader"] as? String == "static")

        let never = try await CommandRun.run(binary, common + ["--browser", "never", "https://site.test/app"])
        #expect(never.status == 1, "no browser, no media: \(never.stderr)")
    }

    /// A web component draws its GIF in an open shadow root (the URL put together by its script):
    /// rendered, the shadow root's `<img>` is read like the rest of the page.
    @Test(arguments: ["always", "auto"])
    func aGIFInAShadowRootIsFound(browser: String) async throws {
        let server = try LoopbackServer(keepsAlive: true) { request in
            request.path == "/card"
                ? .html(
                    """
                    <html><body><gif-card></gif-card><script>
                    const media = (name, type) => 'https://media.test/' + name + '.' + type;
                    customElements.define('gif-card', class extends HTMLElement {
                      constructor() {
                        super();
                        this.attachShadow({ mode: 'open' }).innerHTML = '<img src="' + media('shadow', 'gif') + '" width="300" height="200">';
                      }
                    });
                    </script></body></html>
                    """) : .status(404)
        }
        defer { server.shutdown() }
        let binary = try #require(CommandRun.builtExecutable("trawl"))
        let run = try await CommandRun.run(
            binary,
            [
                "resolve", "--browser", browser, "--connect-to", "::127.0.0.1:\(server.port)", "--plain-http", "--retries", "0",
                "https://site.test/card",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(try JSONSerialization.jsonObject(with: Data((run.lines.first ?? "").utf8)) as? [String: Any], "\(run.stdout)")
        #expect(line["url"] as? String == "https://media.test/shadow.gif")
        #expect(line["loader"] as? String == "browser")
        #expect(run.lines.count == 1)
    }

    /// A widget asks for its GIF 1.2 s after the load, long after 400 ms of network quiet: the
    /// page has no media yet and a timer due soon, so it waits for the timer (unless told not to).
    @Test func aWidgetThatFetchesItsGIFAfterATimerIsWaitedFor() async throws {
        let server = try LoopbackServer(keepsAlive: true) { request in
            switch request.path {
            case "/widget":
                .html(
                    """
                    <html><body><div id="widget"></div><script>
                    setTimeout(() => fetch('/api/widget').then(r => r.json()).then(d => { widget.innerHTML = '<img src="' + d.gif + '">'; }), 1200);
                    </script></body></html>
                    """)
            case "/api/widget": .json(#"{"gif":"https://media.test/widget.gif"}"#)
            default: .status(404)
            }
        }
        defer { server.shutdown() }
        let binary = try #require(CommandRun.builtExecutable("trawl"))
        let common = ["resolve", "--connect-to", "::127.0.0.1:\(server.port)", "--plain-http", "--retries", "0", "https://site.test/widget"]
        let run = try await CommandRun.run(binary, common)
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(try JSONSerialization.jsonObject(with: Data((run.lines.first ?? "").utf8)) as? [String: Any], "\(run.stdout)")
        #expect(line["url"] as? String == "https://media.test/widget.gif")

        let impatient = try await CommandRun.run(binary, common + ["--timer-wait", "0"])
        #expect(impatient.status == 1, "settled before the timer ran: no media")
    }

    /// `trawl resolve` prints the API's media while the page is still loading: the loopback
    /// server holds `/slow` open until the test has read the first line.
    @Test(arguments: ["--json", "--stream", "--table"])
    func theFirstMediaArePrintedBeforeThePageSettles(format: String) async throws {
        let gate = DispatchSemaphore(value: 0)
        let answered = Watched(false)
        let server = try LoopbackServer(keepsAlive: true) { request in
            switch request.path {
            case "/app":
                return .html(
                    """
                    <html><body><main></main><script>
                    fetch('/slow').then(r => r.json()).then(() => { document.querySelector('main').innerHTML = '<video src="https://media.test/late.mp4"></video>'; });
                    fetch('/api').then(r => r.json());
                    </script></body></html>
                    """)
            case "/api": return .json(#"{"items":[{"gif":"https://media.test/early.gif"}]}"#)
            case "/slow":
                _ = gate.wait(timeout: .now() + 30)
                answered.set(true)
                return .json("{}")
            default: return .status(404)
            }
        }
        defer {
            gate.signal()
            server.shutdown()
        }
        let binary = try #require(CommandRun.builtExecutable("trawl"))
        let process = Process()
        process.executableURL = binary
        process.arguments = [
            "resolve", format, "--browser", "always", "--connect-to", "::127.0.0.1:\(server.port)", "--plain-http", "--retries", "0",
            "https://site.test/app",
        ]
        process.environment = CommandRun.isolatedEnvironment()
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let exited = process.watchExit()
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Read on a thread of its own, which lets `/slow` go the moment the first line is in: a
        // task would wait for a thread of the pool first, and on a busy pool the page's time
        // budget could run out with `/slow` still held.
        let reader = output.fileHandleForReading
        let (firstLine, answeredFirst, all) = try await offPool("resolve-output") {
            var text = Data()
            while !text.contains(UInt8(ascii: "\n")) {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                text += chunk
            }
            let answeredFirst = answered.value
            gate.signal()
            let firstLine = String(decoding: text, as: UTF8.self)
            text += reader.readDataToEndOfFile()
            return (firstLine, answeredFirst, String(decoding: text, as: UTF8.self))
        }
        // The first media came out while `/slow` was still held: the page had not settled.
        #expect(!answeredFirst)
        try await exited.wait(for: "trawl resolve to finish once /slow answered")
        #expect(process.terminationStatus == 0, "\(all)")
        #expect(answered.value)
        if format == "--table" {
            #expect(firstLine.hasPrefix("https://site.test/app"))
            #expect(all.contains("early.gif"))
        } else {
            #expect(firstLine.contains("https://media.test/early.gif"))
            #expect(!firstLine.contains("late.mp4"))
        }
        // The DOM's video, built once `/slow` answered, follows, and the GIF is not repeated.
        #expect(all.contains("https://media.test/late.mp4"))
        #expect(all.components(separatedBy: "early.gif").count == 2)
    }
}
