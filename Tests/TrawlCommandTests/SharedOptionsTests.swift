import Foundation
import Testing
import TrawlTesting

/// The options every fetching command shares come from one place: same names, same help, same
/// checks in `resolve`, `batch`, `worker`, `serve` and `smoke`.
@Suite("shared command-line options", .timeLimit(.minutes(5)), .tags(.process))
struct SharedOptionsTests {
    static let fetching = [["resolve"], ["batch", "run"], ["worker"], ["serve"], ["smoke"]]

    /// `--help` of `command`, its wrapped lines joined (whitespace runs as one space).
    func help(_ command: [String]) async throws -> String {
        let run = try await trawl(command + ["--help"])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    func trawl(_ arguments: [String]) async throws -> CommandRun {
        let binary = try #require(CommandRun.builtExecutable("trawl"), "the trawl executable is built beside the tests")
        return try await CommandRun.run(binary, arguments, input: nil, in: FileManager.default.temporaryDirectory)
    }

    @Test(arguments: fetching)
    func everyFetchingCommandHasTheConnectionOptions(_ command: [String]) async throws {
        let text = try await help(command)
        for line in [
            "--timeout <timeout>", "Seconds allowed for each request.", "--user-agent <user-agent>", "The User-Agent header to send.",
            "--connect-to <connect-to>", "as curl's --connect-to (repeatable); the browser too.", "--plain-http",
            "Speak plain HTTP to every host (for a local mirror behind --connect-to).",
        ] {
            #expect(text.contains(line), "\(command) --help lacks '\(line)'")
        }
    }

    /// Each command with what it needs besides the options under test (nothing is fetched:
    /// usage errors stop it first).
    static let usable = [
        ["resolve", "https://site.test/page"], ["batch", "run", "urls.txt"], ["worker", "--queue", "postgres://127.0.0.1:1/none"],
        ["serve"], ["smoke"],
    ]

    @Test(arguments: [["batch", "run"], ["worker"]])
    func batchAndWorkerShareTheJobOptions(_ command: [String]) async throws {
        let text = try await help(command)
        #expect(text.contains("--concurrency <concurrency>"))
        #expect(text.contains("Requests in flight at once, over all hosts."))
        #expect(text.contains("Ask each host's robots.txt first and skip what it disallows."))
        let usable = try #require(Self.usable.first { $0.starts(with: command) })
        let zero = try await trawl(usable + ["--concurrency", "0"])
        #expect(zero.status == 2, "\(zero.stderr)")
        #expect(zero.stderr.contains("--concurrency must be at least 1"), "\(zero.stderr)")
    }

    @Test(arguments: usable)
    func everyCommandThatRendersSharesTheSettleOptions(_ command: [String]) async throws {
        let text = try await help(Array(command.prefix(command.first == "batch" ? 2 : 1)))
        for line in ["--quiet-window <quiet-window>", "--early-settle/--no-early-settle", "without it, every page waits its whole --quiet-window."] {
            #expect(text.contains(line), "\(command) --help lacks '\(line)'")
        }
        let zero = try await trawl(command + ["--quiet-window", "0", "--no-early-settle"])
        #expect(zero.status == 2, "\(command): \(zero.stderr)")
        #expect(zero.stderr.contains("--quiet-window must be at least 1 millisecond"), "\(command): \(zero.stderr)")
    }

    @Test(arguments: usable)
    func aBadConnectToOrTimeoutIsAUsageErrorNamingIt(_ command: [String]) async throws {
        let badRule = try await trawl(command + ["--connect-to", "nowhere"])
        #expect(badRule.status == 2, "\(command): \(badRule.stderr)")
        #expect(badRule.stderr.contains("--connect-to 'nowhere' is not HOST:PORT:TO_HOST:TO_PORT"), "\(command): \(badRule.stderr)")
        let badTimeout = try await trawl(command + ["--timeout", "0"])
        #expect(badTimeout.status == 2, "\(command): \(badTimeout.stderr)")
        #expect(badTimeout.stderr.contains("--timeout must be a positive number of seconds"), "\(command): \(badTimeout.stderr)")
    }
}
