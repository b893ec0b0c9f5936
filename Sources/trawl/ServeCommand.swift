public import ArgumentParser
import Foundation
import Logging
import Synchronization
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
            Binds 127.0.0.1:8080 unless told otherwise (--port 0 picks a free port). The first line on standard output is 'listening on http://HOST:PORT'; logs go to standard error. SIGTERM or Ctrl-C stops gracefully: requests in flight finish, running batches put their work back in their stores and go on when the server starts again on the same --batch-dir. With --replay the server answers resolves and batches from recordings (no network). What its clients resolve over http(s) goes into the server's own local index (DATA-DIR/index.sqlite; --index, --no-index), which !local searches. The API is described in docs/openapi.yaml.

            Bound to anything but loopback it needs --token (or --no-auth, which warns); --public-host names the host names it answers to. docs/security.md says what the server promises.

            Exit codes: 0 stopped cleanly, 2 usage error (a public bind with no token among them), 3 the server could not start (the port is taken, the batch folder cannot be made).
            """)

    @Option(help: "The address to listen on.")
    var host: String = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port).")
    var port: Int = 8080

    @Option(help: "Serve requests from this HAR file, or every HAR under this folder, instead of the network.")
    var replay: String?

    @Option(help: "With --replay, what a request with no recording does: none (an error naming it) or network.")
    var fallback: TrawlConfiguration.Replay.Fallback = .none

    @OptionGroup
    var connection: ConnectionOptions

    @Option(help: "The server's own folder: its local index (index.sqlite) and its batches (batches/).")
    var dataDir: String = "trawl-serve"

    @Option(help: "Keep batches (job store, list, results) in this folder (default: DATA-DIR/batches).")
    var batchDir: String?

    @Option(help: "Seconds a finished batch is kept before it is deleted (0: until DELETE /v1/batches/ID).")
    var batchTtl: Double = 86400

    @Option(help: "Seconds a connection may go without a whole request head (after it opens or after its last answer) before it is closed.")
    var idleTimeout: Double = 15

    @Option(help: "Seconds a request may take before it is answered 504.")
    var requestTimeout: Double = 60

    @Option(help: "Resolves running at once; more wait their turn.")
    var maxResolves: Int = 16

    @Option(help: "Requests per second one client may make to /v1/ on average (0: no limit).")
    var rate: Double = 20

    @Option(help: "Requests one client may make at once above --rate.")
    var burst: Int = 40

    @Option(help: "Resolves one client may have running or waiting (more: 429).")
    var maxResolvesPerClient: Int = 4

    @Option(help: "Search sessions (/v1/sessions) open at once.")
    var maxSessions: Int = 256

    @Option(help: "Search sessions one client may have open (more: 429).")
    var maxSessionsPerClient: Int = 16

    @Option(help: "Connections one client may have open (more are closed at once).")
    var maxConnectionsPerClient: Int = 32

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

    @Option(
        help: ArgumentHelp(
            "A name clients reach the server by (repeatable). Requests whose Host is another name are refused (421), IP addresses and localhost always answer.",
            valueName: "name"))
    var publicHost: [String] = []

    @Option(
        help: ArgumentHelp(
            "A reverse proxy (CIDR, repeatable) whose X-Forwarded-For names the client the rate limit and the per-client caps count.", valueName: "cidr"))
    var trustedProxy: [String] = []

    @Flag(help: "Serve on an address other than loopback without a token: anyone who can reach it can use the API.")
    var noAuth = false

    @Option(help: "Log level on standard error: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    @OptionGroup(title: "Fetch policy")
    var fetch: FetchPolicyOptions

    @OptionGroup(title: "Fetch policy")
    var address: ServerAddressOptions

    @OptionGroup(title: "Probe (the default of every resolve and session; probe=false turns it off for one)")
    var probe: ProbeOptions

    @OptionGroup(title: "Browser")
    var browser: BrowserOptions

    @OptionGroup(title: "Local index")
    var index: IndexOptions

    func validate() throws {
        if host.isEmpty { throw ValidationError("--host must not be empty") }
        if !(0...65535).contains(port) { throw ValidationError("--port must be from 0 to 65535") }
        if !(requestTimeout > 0) { throw ValidationError("--request-timeout must be a positive number of seconds") }
        if !(batchTtl >= 0) { throw ValidationError("--batch-ttl must not be negative") }
        if !(idleTimeout > 0) { throw ValidationError("--idle-timeout must be a positive number of seconds") }
        if maxResolves < 1 { throw ValidationError("--max-resolves must be at least 1") }
        if !(rate >= 0) { throw ValidationError("--rate must not be negative") }
        if burst < 1 { throw ValidationError("--burst must be at least 1") }
        if maxResolvesPerClient < 1 || maxSessionsPerClient < 1 || maxConnectionsPerClient < 1 {
            throw ValidationError("--max-resolves-per-client, --max-sessions-per-client and --max-connections-per-client must be at least 1")
        }
        if maxSessions < 1 { throw ValidationError("--max-sessions must be at least 1") }
        if !(sessionIdle > 0) { throw ValidationError("--session-idle must be a positive number of seconds") }
        if maxURLLength < 256 { throw ValidationError("--max-url-length must be at least 256") }
        if maxBodySize < 1024 { throw ValidationError("--max-body-size must be at least 1024") }
        if let token, token.isEmpty { throw ValidationError("--token must not be empty") }
        if fallback == .network && replay == nil { throw ValidationError("--fallback needs --replay") }
        if noAuth, token != nil { throw ValidationError("--no-auth and --token are exclusive") }
        for name in publicHost where name.isEmpty || name.contains("/") || name.contains(" ") {
            throw ValidationError("--public-host '\(name)' is not a host name like trawl.example.org")
        }
        _ = try trustedProxyRanges()
        // Refused before anything is opened or bound: a public bind with no token.
        var exposure = ServerConfiguration()
        exposure.host = host
        exposure.limits.token = resolvedToken
        exposure.limits.allowsNoAuthOnPublicBind = noAuth
        do {
            try exposure.checkSafety()
        } catch {
            throw ValidationError("\(error)")
        }
        for origin in corsOrigin where origin != "*" && !(origin.hasPrefix("http://") || origin.hasPrefix("https://")) {
            throw ValidationError("--cors-origin '\(origin)' is not * or an origin like https://app.example")
        }
    }

    /// `--token`, else `TRAWL_SERVE_TOKEN` (which keeps it out of the process list).
    var resolvedToken: String? {
        token ?? ProcessInfo.processInfo.environment["TRAWL_SERVE_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    func trustedProxyRanges() throws -> [AddressRange] {
        try trustedProxy.map { text in
            do {
                return try AddressRange(parsing: text)
            } catch {
                throw ValidationError("--trusted-proxy \(error)")
            }
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
    ///
    /// Its transfers belong to different clients, so no cookie jar is shared between them: each
    /// keeps the cookies of its own redirects only.
    func loaderConfiguration() throws -> LoaderConfiguration {
        var loader = connection.loader(addressPolicy: try address.policy())
        loader.sharesCookies = false
        return loader
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
        configuration.trawl = TrawlConfiguration(loader: try loaderConfiguration())
        configuration.trawl.plainHTTP = connection.plainHTTP
        configuration.trawl.search = SearchKeys.fromEnvironment()
        configuration.trawl.browser = browser.browser
        // Requests come from strangers: a context per page unless `--isolate host`.
        configuration.trawl.browserConfiguration = browser.configuration(isolating: .page)
        configuration.trawl.probe = probe.options
        configuration.trawl.bytesEvidence = probe.bytesEvidenceLimits(onByDefault: true)
        do {
            configuration.trawl.fetch = try fetch.policy()
        } catch {
            throw ValidationError("--cache: \(error)")
        }
        if let replay {
            configuration.trawl.replay = try TrawlConfiguration.Replay(path: URL(fileURLWithPath: replay), fallback: fallback)
        }
        // What the server's clients resolve is indexed (not in a replay: demos and tests leave
        // no trace), and `!local` searches that index: the server's own, under --data-dir, never
        // the operator's (which holds local files and intranet pages resolved from the CLI).
        let data = URL(fileURLWithPath: dataDir)
        if index.path == nil && !index.off { try? FileManager.default.createDirectory(at: data, withIntermediateDirectories: true) }
        let opened = index.open(recording: replay == nil, command: "serve", defaultPath: data.appendingPathComponent("index.sqlite").path)
        configuration.trawl.localIndex = opened?.index
        configuration.trawl.sink = opened?.writer
        configuration.batchDirectory = batchDir.map { URL(fileURLWithPath: $0) } ?? data.appendingPathComponent("batches")
        configuration.limits.requestTimeout = .milliseconds(Int(requestTimeout * 1000))
        configuration.limits.maxConcurrentResolves = maxResolves
        configuration.limits.idleTimeout = .milliseconds(Int(idleTimeout * 1000))
        configuration.batchLimits.timeToLive = batchTtl > 0 ? .milliseconds(Int(batchTtl * 1000)) : nil
        configuration.limits.rate = rate > 0 ? rate : nil
        configuration.limits.burst = burst
        configuration.limits.maxSessions = maxSessions
        configuration.limits.maxConcurrentResolvesPerClient = maxResolvesPerClient
        configuration.limits.maxSessionsPerClient = maxSessionsPerClient
        configuration.limits.maxConnectionsPerClient = maxConnectionsPerClient
        configuration.limits.sessionIdleTimeout = .milliseconds(Int(sessionIdle * 1000))
        configuration.limits.maxURLLength = maxURLLength
        configuration.limits.maxBodyBytes = maxBodySize
        configuration.limits.token = resolvedToken
        configuration.limits.corsOrigins = corsOrigin
        configuration.limits.publicHosts = publicHost
        configuration.limits.trustedProxies = try trustedProxyRanges()
        configuration.limits.allowsNoAuthOnPublicBind = noAuth
        if let problem = Self.exposure(of: configuration) { Diagnostics.write("trawl serve: warning: \(problem)") }

        let listening = Mutex(false)
        do {
            let server = try TrawlServer(configuration: configuration, logger: logger)
            try await server.run { host, port in
                listening.withLock { $0 = true }
                let shown = host.contains(":") ? "[\(host)]" : host
                // Unbuffered, so a script reading the pipe sees it at once.
                FileHandle.standardOutput.write(Data("listening on http://\(shown):\(port)\n".utf8))
            }
        } catch {
            await opened?.close()
            // Before the socket was bound, the failure is the address's (a taken port, a name
            // that does not resolve): say which (a `ListenError` says so itself).
            let shown = host.contains(":") ? "[\(host)]" : host
            let prefix = listening.withLock { $0 } || error is ListenError ? "" : "cannot listen on \(shown):\(port): "
            Diagnostics.write("trawl serve: " + prefix + ErrorSentence.describe(error))
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        await opened?.close()
    }
}

extension ServeCommand {
    /// A warning for a server others can reach with no token (`--no-auth`), or `nil`.
    static func exposure(of configuration: ServerConfiguration) -> String? {
        guard !configuration.bindsLoopbackOnly, configuration.limits.token == nil else { return nil }
        return "serving \(configuration.host) with no token (--no-auth): anyone who can reach this address can resolve, start batches and read the index"
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
