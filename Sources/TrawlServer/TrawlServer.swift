import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Trawl
import TrawlBatch
import TrawlCore

/// `trawl serve`: the HTTP API, the web page, `/metrics`, with the configured limits.
///
/// ```swift
/// var configuration = ServerConfiguration()
/// configuration.port = 0
/// let server = try TrawlServer(configuration: configuration)
/// try await server.run { host, port in print("listening on http://\(host):\(port)") }
/// ```
///
/// Routes (see `docs/openapi.yaml`): `GET /` (the page), `GET /v1/resolve`, `/v1/sessions` (search
/// as you type), `POST /v1/batches`, `GET /v1/batches/{id}`, `GET /v1/batches/{id}/results`,
/// `GET /healthz`, `GET /metrics`.
public struct TrawlServer: Sendable {
    public let configuration: ServerConfiguration
    /// The server's figures, as `/metrics` shows them.
    public let metrics: ServerMetrics
    let provider: SearchProvider
    let batches: BatchManager?
    let sessions: SessionRegistry
    let logger: Logger

    /// Builds the environment resolves, sessions and batches run in (its transport and renderer
    /// counted for `/metrics`; one browser for all of them) and the batch manager.
    /// - Throws: when the batch folder cannot be made.
    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "trawl.serve")) throws {
        self.configuration = configuration
        self.logger = logger
        let metrics = ServerMetrics()
        self.metrics = metrics
        var environment = Trawl.makeEnvironment(configuration.trawl, logger: logger)
        environment.transport = CountingTransport(base: environment.transport, metrics: metrics)
        if let renderer = environment.renderer { environment.renderer = CountingRenderer(base: renderer, metrics: metrics) }
        var search = configuration.trawl.search
        if configuration.trawl.replay != nil {
            // As `Trawl.makeProvider` does: keys are scrubbed from recordings, any key replays.
            search.giphyKey = search.giphyKey ?? Scrubber.placeholder
            search.tenorKey = search.tenorKey ?? Scrubber.placeholder
        }
        provider = Trawl.makeProvider(environment: environment, search: search, localIndex: configuration.trawl.localIndex)
        sessions = SessionRegistry(provider: provider, limits: configuration.limits, metrics: metrics)
        if let directory = configuration.batchDirectory {
            var batch = configuration.batch
            batch.loader = configuration.trawl.loader
            batch.plainHTTP = configuration.trawl.plainHTTP
            batch.fetch = configuration.trawl.fetch
            batch.browser = configuration.trawl.browser
            batch.browserConfiguration = configuration.trawl.browserConfiguration
            // A replaying server's batches replay too; what resolves find, batches index too.
            batch.replay = configuration.trawl.replay
            batch.sink = configuration.trawl.sink
            // One Chromium for the whole server, started by the first page that needs it.
            batch.renderer = environment.renderer
            batches = BatchManager(
                directory: directory, configuration: batch, search: configuration.trawl.search, metrics: metrics, logger: logger)
        } else {
            batches = nil
        }
    }

    /// Every route, behind the middleware (outermost first): metrics, CORS, JSON errors, URL
    /// length, bearer token, rate limit.
    public func makeRouter() -> Router<ServerRequestContext> {
        let limits = configuration.limits
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
        if !limits.corsOrigins.isEmpty { router.add(middleware: CORSPolicyMiddleware(origins: limits.corsOrigins)) }
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: URLLengthMiddleware(maxLength: limits.maxURLLength))
        if let token = limits.token { router.add(middleware: BearerAuthMiddleware(token: token)) }
        if let rate = limits.rate { router.add(middleware: RateLimitMiddleware(limiter: RateLimiter(rate: rate, burst: limits.burst))) }

        WebPage.add(to: router)
        HealthRoutes(metrics: metrics).add(to: router)
        let run = ResolveRun(
            provider: provider, slots: ResolveSlots(limit: limits.maxConcurrentResolves), metrics: metrics, timeout: limits.requestTimeout)
        ResolveRoutes(run: run, maxLimit: limits.maxResolveLimit).add(to: router)
        SessionRoutes(registry: sessions, maxLimit: limits.maxResolveLimit).add(to: router)
        BatchRoutes(manager: batches, maxBodyBytes: limits.maxBodyBytes).add(to: router)
        return router
    }

    /// The Hummingbird application: the router, bound to the configured host and port, with
    /// the batch service beside it.
    /// - Parameter onListening: called once the socket is bound, with the host and the port
    ///   (the real one when ``ServerConfiguration/port`` is `0`).
    public func makeApplication(
        onListening: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }
    ) -> some ApplicationProtocol {
        let host = configuration.host
        var application = Application(
            router: makeRouter(),
            configuration: ApplicationConfiguration(address: .hostname(host, port: configuration.port), serverName: "trawl"),
            onServerRunning: { channel in await onListening(host, channel.localAddress?.port ?? 0) },
            logger: logger)
        application.addServices(SessionService(registry: sessions))
        if let batches { application.addServices(BatchService(manager: batches)) }
        return application
    }

    /// Serves until SIGTERM or SIGINT, then stops gracefully: no new connections, requests in
    /// flight finish, running batches put their work in flight back in their stores.
    public func run(onListening: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }) async throws {
        try await makeApplication(onListening: onListening).runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }
}

/// Which paths need the bearer token when one is set.
enum ServerRoutes {
    static func isProtected(_ path: String) -> Bool {
        path.hasPrefix("/v1/") || path == "/metrics"
    }
}
