import Foundation
import Testing
import TrawlTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `trawl serve` as a script meets it: the first line names the address, the API answers on
/// it, SIGTERM stops it cleanly.
@Suite("trawl serve", .timeLimit(.minutes(5)), .tags(.process))
struct ServeCommandTests {
    /// A running `trawl serve`: its output read as it comes (a chatty child never blocks on a
    /// pipe), its errors in a file.
    final class ServeProcess {
        let process = Process()
        let stdout: OutputLines
        let stderr: URL
        let exited: Watched<Bool>
        /// The run's own folder: `serve/` is its data folder, `data/` its XDG_DATA_HOME.
        let scratch: URL

        init(_ arguments: [String]) throws {
            let binary = try #require(CommandRun.builtExecutable("trawl"), "the trawl executable is built beside the tests")
            scratch = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-serve-run-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            stderr = scratch.appendingPathComponent("err")
            _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
            process.executableURL = binary
            process.arguments = ["serve"] + arguments + ["--data-dir", scratch.appendingPathComponent("serve").path]
            process.currentDirectoryURL = repository
            var environment = ProcessInfo.processInfo.environment
            for key in ["TRAWL_GIPHY_KEY", "TRAWL_TENOR_KEY", "TRAWL_DEFAULT_ENGINE", "TRAWL_SERVE_TOKEN"] { environment[key] = nil }
            // The server opens the local index for `!local`: the run's own, never the user's.
            environment["XDG_DATA_HOME"] = scratch.appendingPathComponent("data").path
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            process.standardError = try FileHandle(forWritingTo: stderr)
            process.standardInput = FileHandle.nullDevice
            exited = process.watchExit()
            try process.run()
            stdout = OutputLines(output)
        }

        /// A test that failed or threw before ``stop(_:)`` leaves no server behind. Not waited
        /// for here (a deinit cannot await, and a blocking wait would hold a thread of the
        /// cooperative pool): Foundation's process thread reaps it, holding the `Process` until then.
        deinit {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }

        var output: String { stdout.text }
        var errors: String { (try? String(contentsOf: stderr, encoding: .utf8)) ?? "" }

        /// The first line: the server prints it once it listens.
        func firstLine() async throws -> String {
            do {
                return try await stdout.first(for: "the address it listens on") { _ in true }
            } catch {
                Issue.record("no first line (\(error)); stderr: \(errors)")
                return ""
            }
        }

        /// Sends `signal` and waits for the exit status.
        func stop(_ signal: Int32 = SIGTERM) async throws -> Int32 {
            kill(process.processIdentifier, signal)
            do {
                try await exited.wait(for: "trawl serve to stop on signal \(signal)")
            } catch {
                kill(process.processIdentifier, SIGKILL)
                Issue.record("\(error)")
                try await exited.wait(for: "trawl serve to die of SIGKILL", within: .seconds(60))
            }
            // Its output is complete once the pipe ends (the exit closed it).
            _ = try await stdout.end()
            return process.terminationStatus
        }
    }

    static func get(_ url: URL) async throws -> (Int, String) {
        let (data, response) = try await URLSession.shared.data(from: url)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test func announcesItsAddressServesAndStopsOnSIGTERM() async throws {
        let server = try ServeProcess(["--port", "0", "--replay", "Recordings"])
        let line = try await server.firstLine()
        #expect(line.hasPrefix("listening on http://127.0.0.1:"), "\(line)")
        let base = try #require(URL(string: String(line.dropFirst("listening on ".count))))
        #expect(base.port.map { $0 > 0 } == true)

        let (healthStatus, health) = try await Self.get(base.appendingPathComponent("healthz"))
        #expect(healthStatus == 200 && health.contains("\"ok\""))
        var components = try #require(URLComponents(url: base.appendingPathComponent("v1/resolve"), resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "q", value: giphyCatPage)]
        let (resolveStatus, resolved) = try await Self.get(try #require(components.url))
        #expect(resolveStatus == 200)
        #expect(resolved.contains("Trawl0Cat1Demo"))
        let (pageStatus, page) = try await Self.get(base)
        #expect(pageStatus == 200 && page.contains("<title>Trawl</title>"))

        #expect(try await server.stop(SIGTERM) == 0, "\(server.errors)")
        // Nothing but the address on standard output: logs go to standard error.
        #expect(server.output.split(separator: "\n").count == 1, "\(server.output)")
    }

    /// The server fetches what strangers send, so the address guard is on without a flag: a
    /// page on loopback (a made-up name mapped to 127.0.0.1) is refused with 403 naming the
    /// host, and the server never connects; `--allow-address` opens the range deliberately.
    @Test func privateAddressesAreRefusedByDefault() async throws {
        let site = try LoopbackServer { ServerFixture.page($0.path) }
        let mapping = ["--connect-to", "inside.test:80:127.0.0.1:\(site.port)", "--browser", "never"]
        let page = "http://inside.test/cat"

        let guarded = try ServeProcess(["--port", "0"] + mapping)
        let base = try #require(URL(string: String(try await guarded.firstLine().dropFirst("listening on ".count))))
        var components = try #require(URLComponents(url: base.appendingPathComponent("v1/resolve"), resolvingAgainstBaseURL: false))
        components.queryItems = [URLQueryItem(name: "q", value: page)]
        let (status, body) = try await Self.get(try #require(components.url))
        #expect(status == 403, "\(body)")
        #expect(body.contains("\"refused-address\"") && body.contains("inside.test"), "\(body)")
        #expect(!body.contains("127.0.0.1"), "the refusal names the host, not the address: \(body)")
        #expect(site.requests.isEmpty, "the guard refuses before connecting")
        #expect(try await guarded.stop(SIGTERM) == 0, "\(guarded.errors)")

        let opened = try ServeProcess(["--port", "0", "--allow-address", "127.0.0.1/32"] + mapping)
        let openBase = try #require(URL(string: String(try await opened.firstLine().dropFirst("listening on ".count))))
        var openComponents = try #require(URLComponents(url: openBase.appendingPathComponent("v1/resolve"), resolvingAgainstBaseURL: false))
        openComponents.queryItems = [URLQueryItem(name: "q", value: page)]
        let (openStatus, openBody) = try await Self.get(try #require(openComponents.url))
        #expect(openStatus == 200, "\(openBody)")
        #expect(openBody.contains("https://media.test/cat.gif"), "\(openBody)")
        #expect(try await opened.stop(SIGTERM) == 0, "\(opened.errors)")
    }

    @Test func aTakenPortIsARuntimeFailure() async throws {
        let first = try ServeProcess(["--port", "0", "--replay", "Recordings"])
        let line = try await first.firstLine()
        let port = try #require(URL(string: String(line.dropFirst("listening on ".count)))?.port)
        let second = try ServeProcess(["--port", String(port), "--replay", "Recordings"])
        try await second.exited.wait(for: "the second server to give up on the taken port")
        #expect(second.process.terminationStatus == 3, "\(second.errors)")
        #expect(second.errors.contains("trawl serve: cannot listen on 127.0.0.1:\(port): address already in use"), "\(second.errors)")
        // In words: no networking library's type or function names.
        for word in ["IOError", "SocketAddressError", "bind(descriptor", "errno"] { #expect(!second.errors.contains(word), "\(second.errors)") }
        #expect(try await first.stop(SIGINT) == 0)
    }

    /// Bound to anything but loopback with no token, the server does not start: it names the
    /// way out. (Nothing is bound: the refusal comes first.)
    @Test func aPublicBindWithoutATokenIsAUsageError() async throws {
        let binary = try #require(CommandRun.builtExecutable("trawl"))
        let run = try await CommandRun.run(binary, ["serve", "--host", "0.0.0.0", "--port", "0", "--no-index"], environment: CommandRun.isolatedEnvironment())
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("--token") && run.stderr.contains("--no-auth"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// `!local` on a server searches the server's own index, under its data folder — never the
    /// operator's (the test's XDG_DATA_HOME stands for it).
    @Test func theServerKeepsAnIndexOfItsOwn() async throws {
        let server = try ServeProcess(["--port", "0", "--replay", "Recordings"])
        _ = try await server.firstLine()
        let data = server.scratch
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("serve/index.sqlite").path))
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("data/trawl/index.sqlite").path))
        #expect(try await server.stop(SIGTERM) == 0, "\(server.errors)")
    }

    /// The guard is always on in serve: the help does not offer to turn it on.
    @Test func serveHelpOffersNoDenyPrivate() async throws {
        let binary = try #require(CommandRun.builtExecutable("trawl"))
        let run = try await CommandRun.run(binary, ["serve", "--help"])
        #expect(run.status == 0)
        #expect(!run.stdout.contains("--deny-private"))
        #expect(run.stdout.contains("--allow-address"))
    }

    @Test(arguments: [
        ["--port", "70000"], ["--rate", "-1"], ["--cors-origin", "app.example"], ["--fallback", "network"], ["--no-auth", "--token", "x"],
        ["--trusted-proxy", "10.0.0.1/8"], ["--public-host", "a b"], ["--deny-private"],
    ])
    func badOptionsAreUsageErrors(arguments: [String]) async throws {
        let binary = try #require(CommandRun.builtExecutable("trawl"))
        let run = try await CommandRun.run(binary, ["serve"] + arguments)
        #expect(run.status == 2, "\(arguments): \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }
}
