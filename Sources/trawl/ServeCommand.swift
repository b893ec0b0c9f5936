import ArgumentParser
import Foundation
import Logging
import Trawl
import TrawlCore
import TrawlFetch
import TrawlServer

/// `trawl serve`: the HTTP API and the web page.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the HTTP API (/v1/resolve, /v1/batches), the web page (/), /healthz and /metrics.",
        discussion: """
            Binds 127.0.0.1:8080 unless told otherwise (--port 0 picks a free port). The first line on standard output is 'listening on http://HOST:PORT'; logs go to standard error. SIGTERM or Ctrl-C stops gracefully: requests in flight finish, running batches put their work back in their stores and go on when the server starts again on the same --batch-dir. With --replay the server answers resolves and batches from recordings (no network). What the server finds goes into the local index (--index, --no-index), which !local searches. The API is described in docs/openapi.yaml.

            Exit codes: 0 stopped cleanly, 2 usage error, 3 the server could not start (the port is taken, the batch folder cannot be made).
            """)

    @Option(help: "The address to listen on.")
    var host: String = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port).")
    var port: Int = 8080

    @Option(help: "Serve requests from this HAR file, or every HAR under this folder, instead of the network.")
    var replay: String?

    @Option(help: "With --replay, what a request with no recording does: none (an error naming it) or network.")
    var fallback: Trawl.Replay.Fallback = .none

    @OptionGroup
    var connection: ConnectionOptions

    @Option(help: "Keep batches (job store, list, results) in this folder.")
    var batchDir: String = "trawl-batches"

    @Option(help: "Seconds a request may take before it is answered 504.")
    var requestTimeout: Double = 60

    @Option(help: "Resolves running at once; more wait their turn.")
    var maxResolves: Int = 16

    @Option(help: "Requests per second one client may make to /v1/ on average (0: no limit).")
    var rate: Double = 20

    @Option(help: "Requests one client may make at once above --rate.")
    var burst: Int = 40

    @Option(help: "Search sessions (/v1/sessions) open at once.")
    var maxSessions: Int = 256

    @Option(help: "Seconds a search session may go without a query before it is closed.")
    var sessionIdle: Double = 600

    @Option(help: "The longest request URL in bytes (longer: 413).")
    var maxURLLength: Int = 8192

    @Option(help: "The largest request body in bytes (larger: 413).")
    var maxBodySize: Int = 4 << 20

    @Option(help: "Require 'Authorization: Bearer TOKEN' on /v1/ and /metrics (or set TRAWL_SERVE_TOKEN, which keeps it out of the process list).")
    var token: String?

    @Option(help: "An origin browser apps may call the API from, or * for any (repeatable).")
    var corsOrigin: [String] = []

    @Option(help: "Log level on standard error: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    @OptionGroup(title: "Fetch policy")
    var fetch: FetchOptions

    @OptionGroup(title: "Browser")
    var browser: BrowserOptions

    @OptionGroup(title: "Local index")
    var index: IndexOptions

    func validate() throws {
        if host.isEmpty { throw ValidationError("--host must not be empty") }
        if !(0...65535).contains(port) { throw ValidationError("--port must be from 0 to 65535") }
        if !(requestTimeout > 0) { throw ValidationError("--request-timeout must be a positive number of seconds") }
        if maxResolves < 1 { throw ValidationError("--max-resolves must be at least 1") }
        if !(rate >= 0) { throw ValidationError("--rate must not be negative") }
        if burst < 1 { throw ValidationError("--burst must be at least 1") }
        if maxSessions < 1 { throw ValidationError("--max-sessions must be at least 1") }
        if !(sessionIdle > 0) { throw ValidationError("--session-idle must be a positive number of seconds") }
        if maxURLLength < 256 { throw ValidationError("--max-url-length must be at least 256") }
        if maxBodySize < 1024 { throw ValidationError("--max-body-size must be at least 1024") }
        if let token, token.isEmpty { throw ValidationError("--token must not be empty") }
        if fallback == .network && replay == nil { throw ValidationError("--fallback needs --replay") }
        for origin in corsOrigin where origin != "*" && !(origin.hasPrefix("http://") || origin.hasPrefix("https://")) {
            throw ValidationError("--cors-origin '\(origin)' is not * or an origin like https://app.example")
        }
    }

    // MARK: - The server's fetch safety (SSRF guard)

    /// The one place the server's loader configuration is built: every resolve and batch of
    /// `trawl serve` fetches with it.
    ///
    /// A server fetches whatever URL a client sends, so it refuses loopback, private, link-local
    /// and the other non-public destinations always (`--deny-private` is implied), widened only
    /// by each `--allow-address CIDR`; the API answers `refused-address` with 403
    /// (`ErrorStatus`). The browser gets the same rule: `Trawl` fetches its requests through this
    /// guarded loader.
    func loaderConfiguration() throws -> LoaderConfiguration {
        connection.loader(addressPolicy: try fetch.address.serverPolicy())
    }

    func run() async throws {
        // Logs to standard error: standard output's first line is the address, for scripts.
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "trawl.serve")
        // A parent may have started us with these signals blocked (Foundation's Process does,
        // from a Swift task): unblock them, or SIGTERM would never stop the server.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)

        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.trawl = Trawl.Configuration(loader: try loaderConfiguration())
        configuration.trawl.plainHTTP = connection.plainHTTP
        configuration.trawl.search = SearchKeys.fromEnvironment()
        configuration.trawl.browser = browser.browser
        configuration.trawl.browserConfiguration = browser.configuration
        do {
            configuration.trawl.fetch = try fetch.policy()
        } catch {
            throw ValidationError("--cache: \(error)")
        }
        if let replay {
            configuration.trawl.replay = try Trawl.Replay(path: URL(fileURLWithPath: replay), fallback: fallback)
        }
        // What the server finds is indexed (not in a replay: demos and tests leave no trace),
        // and `!local` searches the index.
        let opened = index.open(recording: replay == nil, command: "serve")
        configuration.trawl.localIndex = opened?.index
        configuration.trawl.sink = opened?.writer
        configuration.batchDirectory = URL(fileURLWithPath: batchDir)
        configuration.limits.requestTimeout = .milliseconds(Int(requestTimeout * 1000))
        configuration.limits.maxConcurrentResolves = maxResolves
        configuration.limits.rate = rate > 0 ? rate : nil
        configuration.limits.burst = burst
        configuration.limits.maxSessions = maxSessions
        configuration.limits.sessionIdleTimeout = .milliseconds(Int(sessionIdle * 1000))
        configuration.limits.maxURLLength = maxURLLength
        configuration.limits.maxBodyBytes = maxBodySize
        configuration.limits.token = token ?? ProcessInfo.processInfo.environment["TRAWL_SERVE_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        configuration.limits.corsOrigins = corsOrigin

        do {
            let server = try TrawlServer(configuration: configuration, logger: logger)
            try await server.run { host, port in
                let shown = host.contains(":") ? "[\(host)]" : host
                // Unbuffered, so a script reading the pipe sees it at once.
                FileHandle.standardOutput.write(Data("listening on http://\(shown):\(port)\n".utf8))
            }
        } catch {
            await opened?.close()
            Diagnostics.write("trawl serve: " + ErrorSentence.describe(error))
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        await opened?.close()
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
