import Foundation
import Testing
import TrawlTesting

/// `--deny-private` and `--allow-address` as users meet them. Every server is on loopback and
/// every name is mapped onto loopback: nothing leaves the machine even if the guard broke.
@Suite("The address guard on the command line", .timeLimit(.minutes(5)), .tags(.process))
struct AddressGuardCommandTests {
    static let page = """
        <html><head><meta property="og:video:url" content="https://media.example.com/cat.mp4">
        <meta property="og:video:type" content="video/mp4"></head><body></body></html>
        """

    func trawl(_ arguments: [String], environment extra: [String: String] = [:], in folder: URL? = nil) async throws -> CommandRun {
        let binary = try #require(CommandRun.builtExecutable("trawl"), "the trawl executable is built beside the tests")
        var environment = ProcessInfo.processInfo.environment
        for key in ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"] {
            environment[key] = nil
        }
        environment.merge(extra) { $1 }
        return try await CommandRun.run(binary, arguments, environment: environment, in: folder)
    }

    @Test func resolveRefusesLoopbackNamingTheHost() async throws {
        let server = try LoopbackServer { _ in .html(Self.page) }
        defer { server.shutdown() }
        let refused = try await trawl(["resolve", "--deny-private", "--browser", "never", "http://127.0.0.1:\(server.port)/"])
        #expect(refused.status == 3, "\(refused.stderr)")
        #expect(refused.stderr.contains("'127.0.0.1' is not a public address"), "\(refused.stderr)")
        let streamed = try await trawl(["resolve", "--deny-private", "--stream", "http://127.0.0.1:\(server.port)/"])
        #expect(streamed.status == 3)
        #expect(streamed.stdout.contains(#""code":"refused-address""#), "\(streamed.stdout)")
        #expect(server.requests.isEmpty)

        let allowed = try await trawl(["resolve", "--deny-private", "--allow-address", "127.0.0.1/32", "--json", "http://127.0.0.1:\(server.port)/"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowed.stdout.contains("cat.mp4"))
        #expect(server.requests.count == 1)
    }

    @Test func aNameIsNamedNotTheAddressItReached() async throws {
        let server = try LoopbackServer { _ in .html(Self.page) }
        defer { server.shutdown() }
        let run = try await trawl([
            "resolve", "--deny-private", "--connect-to", "::127.0.0.1:\(server.port)", "http://intranet.corp.example/wiki",
        ])
        #expect(run.status == 3)
        #expect(run.stderr.contains("'intranet.corp.example'"), "\(run.stderr)")
        #expect(!run.stderr.contains("127.0.0.1"), "the resolved address is not told: \(run.stderr)")
        #expect(server.requests.isEmpty)
    }

    /// A proxy from the environment would connect for the guarded transfer (to whatever the URL
    /// names): under --deny-private it is not used.
    @Test func guardedRunsIgnoreProxiesFromTheEnvironment() async throws {
        let proxy = try LoopbackServer(host: "127.0.0.1") { _ in .html("<p>from the proxy</p>") }
        defer { proxy.shutdown() }
        let server = try LoopbackServer(host: "127.0.0.2") { _ in .html(Self.page) }
        defer { server.shutdown() }
        let environment = ["http_proxy": "http://127.0.0.1:\(proxy.port)"]
        let url = "http://127.0.0.2:\(server.port)/"
        let unguarded = try await trawl(["resolve", "--json", url], environment: environment)
        #expect(unguarded.status == 1, "the proxy answered (no media): \(unguarded.stderr)")
        #expect(proxy.requests.count == 1, "without the guard libcurl uses the environment's proxy")
        let guarded = try await trawl(["resolve", "--json", "--deny-private", "--allow-address", "127.0.0.2/32", url], environment: environment)
        #expect(guarded.status == 0, "\(guarded.stderr)")
        #expect(guarded.stdout.contains("cat.mp4"))
        #expect(proxy.requests.count == 1, "the guarded run went straight to the server")
    }

    @Test func batchRefusesAndGoesOnWithTheRest() async throws {
        let server = try LoopbackServer(host: "127.0.0.2") { _ in .html(Self.page) }
        defer { server.shutdown() }
        let inside = try LoopbackServer(host: "127.0.0.1") { _ in .html(Self.page) }
        defer { inside.shutdown() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-guard-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = folder.appendingPathComponent("urls.txt")
        try "http://127.0.0.2:\(server.port)/ok\nhttp://0x7f.1:\(inside.port)/secret\n".write(to: list, atomically: true, encoding: .utf8)
        let run = try await trawl(
            ["batch", list.path, "--out", "results.jsonl", "--deny-private", "--allow-address", "127.0.0.2", "--retries", "0", "--quiet"],
            in: folder)
        #expect(run.status != 2, "\(run.stderr)")
        let results = try String(contentsOf: folder.appendingPathComponent("results.jsonl"), encoding: .utf8)
        let lines = results.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("/ok") && $0.contains("cat.mp4") }, "\(results)")
        #expect(lines.contains { $0.contains("0x7f.1") && $0.contains(#""refused-address""#) }, "\(results)")
        #expect(inside.requests.isEmpty)
        #expect(server.requests.count == 1)
    }

    /// The browser under the guard: the page and its API on 127.0.0.2 (allowed) are fetched
    /// through the guard and rendered; the script's request to 127.0.0.1 (loopback, refused) fails
    /// and never reaches that server. `auto` renders the script-built page as `always` does.
    @Test(arguments: ["always", "auto"])
    func theBrowserRendersThroughTheGuard(mode: String) async throws {
        let inside = try LoopbackServer(host: "127.0.0.1") { _ in .json(#"{"clip":"https://media.example.com/inside.mp4"}"#) }
        defer { inside.shutdown() }
        let insidePort = inside.port
        let server = try LoopbackServer(host: "127.0.0.2", keepsAlive: true) { request in
            switch request.path {
            case "/app/":
                .html(
                    """
                    <html><head><title>Gallery</title></head><body><div id="root"></div><script>
                    fetch('http://2130706433:\(insidePort)/api').catch(() => {});
                    fetch('/api/clip').then(r => r.json()).then(d => {
                      document.getElementById('root').innerHTML = '<video src="' + d.clip + '" width="480" height="270"></video>';
                    });
                    </script></body></html>
                    """)
            case "/api/clip": .json(#"{"clip":"https://media.example.com/rendered.mp4"}"#)
            default: .status(404)
            }
        }
        defer { server.shutdown() }
        let run = try await trawl([
            "resolve", "--json", "--deny-private", "--allow-address", "127.0.0.2/32", "--browser", mode,
            "--connect-to", "gallery.example:80:127.0.0.2:\(server.port)", "http://gallery.example/app/",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("https://media.example.com/rendered.mp4"), "\(run.stdout)")
        #expect(run.stdout.contains(#""loader":"browser""#), "\(run.stdout)")
        #expect(!run.stdout.contains("inside.mp4"))
        #expect(inside.connectionsAccepted == 0, "the refused server saw \(inside.requests.map(\.path))")
        #expect(server.requests.contains { $0.path == "/api/clip" })
    }

    @Test func badFlagsAreUsageErrors() async throws {
        let misplaced = try await trawl(["resolve", "--deny-private", "--allow-address", "10.0.0.1/8", "http://example.com/"])
        #expect(misplaced.status == 2)
        #expect(misplaced.stderr.contains("'10.0.0.1/8' is not a CIDR range") && misplaced.stderr.contains("10.0.0.0/8"), "\(misplaced.stderr)")
        let alone = try await trawl(["resolve", "--allow-address", "10.0.0.0/8", "http://example.com/"])
        #expect(alone.status == 2)
        #expect(alone.stderr.contains("add --deny-private"), "\(alone.stderr)")
        for command in [["resolve"], ["batch", "run"], ["smoke"]] {
            let help = try await trawl(command + ["--help"])
            #expect(help.stdout.contains("--deny-private") && help.stdout.contains("--allow-address <cidr>"), "\(command)")
        }
    }
}
