import Foundation
public import Hummingbird
public import Logging
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
    /// Resolves with `probe=true` (without and with `keepDead=true`).
    let probingProviders: (SearchProvider, SearchProvider)
    /// Whether requests that do not say are probed (``ServerConfiguration/trawl``'s `probe`).
    let probeDefaults: ProbeDefaults
    let batches: BatchManager?
    let sessions: SessionRegistry
    let logger: Logger

    /// Builds the environment resolves, sessions and batches run in (its transport and renderer
    /// counted for `/metrics`; one browser for all of them) and the batch manager.
    /// - Throws: ``ServerConfigurationError`` for a bind others can reach with no token (see
    ///   ``ServerConfiguration/checkSafety()``).
    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "trawl.serve")) throws {
        try configuration.checkSafety()
        self.configuration = configuration
        self.logger = logger
        let metrics = ServerMetrics()
        self.metrics = metrics
        var trawl = configuration.trawl
        trawl.sink = trawl.sink.map { ServedPagesSink(base: $0) }
        // `Configuration.probe` makes probing the default (`probe=false` turns it off for one
        // request): the plain provider never probes, the probing ones always do.
        probeDefaults = ProbeDefaults(probe: trawl.probe != nil, keepDead: trawl.probe?.keepDead ?? false)
        trawl.probe = nil
        var environment = Environment(trawl, logger: logger)
        environment.transport = CountingTransport(base: environment.transport, metrics: metrics)
        if let renderer = environment.renderer { environment.renderer = CountingRenderer(base: renderer, metrics: metrics) }
        let search = configuration.trawl.searchForReplay
        provider = SearchProvider(environment: environment, search: search, localIndex: configuration.trawl.localIndex)
        // The same transport (counted, guarded, polite, cached): a probe is fetched like a page.
        func probing(keepDead: Bool) -> SearchProvider {
            var probing = environment
            var options = configuration.trawl.probe ?? MediaProber.Options()
            options.keepDead = keepDead
            probing.checker = MediaProber(transport: environment.transport, options: options)
            return SearchProvider(environment: probing, search: search, localIndex: configuration.trawl.localIndex)
        }
        probingProviders = (probing(keepDead: false), probing(keepDead: true))
        sessions = SessionRegistry(
            provider: provider, limits: configuration.limits, metrics: metrics, probe: configuration.trawl.probe ?? MediaProber.Options())
        if let directory = configuration.batchDirectory {
            var batch = configuration.batch
            // A server's batches resolve as its resolves do (the loader, the browser, a replay),
            // and what they find is indexed as theirs is; the retries and politeness of
            // `fetch` go to the batch scheduler.
            batch.resolve = trawl
            batch.fetch = configuration.trawl.fetch
            // One Chromium for the whole server, started by the first page that needs it.
            batch.renderer = environment.renderer
            batches = BatchManager(
                directory: directory, configuration: batch, search: configuration.trawl.search, metrics: metrics, logger: logger,
                limits: configuration.batchLimits)
        } else {
            batches = nil
        }
    }

    /// Every route, behind its middleware.
    ///
    /// Every request (outermost first): the client's address (trusted proxies), metrics, CORS,
    /// JSON errors, the `Host` check, the canonical path, the URL length. Then by route: the
    /// page and `/healthz` are open; `/metrics` needs the token (a wrong one is charged to the
    /// rate limit); `/v1/…` is rate-limited, then needs the token, then refuses requests from
    /// other sites' pages. The checks are attached to the routes the router matched, never to
    /// a spelling of a path.
    public func makeRouter() -> Router<ServerRequestContext> {
        let limits = configuration.limits
        let router = Router(context: ServerRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: ClientAddressMiddleware(trustedProxies: limits.trustedProxies))
        router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
        if !limits.corsOrigins.isEmpty { router.add(middleware: CORSPolicyMiddleware(origins: limits.corsOrigins)) }
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: HostCheckMiddleware(bindHost: configuration.host, publicHosts: limits.publicHosts))
        router.add(middleware: CanonicalPathMiddleware())
        router.add(middleware: URLLengthMiddleware(maxLength: limits.maxURLLength))
        router.add(middleware: MethodAnswerMiddleware())

        let limiter = limits.rate.map { RateLimiter(rate: $0, burst: limits.burst) }
        let health = HealthRoutes(metrics: metrics)
        WebPage.add(to: router)
        health.addHealth(to: router)

        let monitoring = router.group()
        if let token = limits.token { monitoring.add(middleware: BearerAuthMiddleware(token: token, limiter: limiter)) }
        health.addMetrics(to: monitoring)

        let api = router.group()
        if let limiter { api.add(middleware: RateLimitMiddleware(limiter: limiter)) }
        if let token = limits.token { api.add(middleware: BearerAuthMiddleware(token: token)) }
        api.add(middleware: CrossSiteRequestMiddleware(corsOrigins: limits.corsOrigins))
        let run = ResolveRun(
            providers: .init(plain: provider, probing: probingProviders.0, probingKeepingDead: probingProviders.1),
            slots: ResolveSlots(limit: limits.maxConcurrentResolves, perClientLimit: limits.maxConcurrentResolvesPerClient), metrics: metrics,
            timeout: limits.requestTimeout)
        ResolveRoutes(run: run, maxLimit: limits.maxResolveLimit, probing: probeDefaults).add(to: api)
        SessionRoutes(registry: sessions, maxLimit: limits.maxResolveLimit, probing: probeDefaults).add(to: api)
        BatchRoutes(manager: batches, maxBodyBytes: limits.maxBodyBytes, probe: configuration.trawl.probe ?? MediaProber.Options()).add(to: api)

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
        let connections = ConnectionLimiter(perClient: configuration.limits.maxConnectionsPerClient, trustedProxies: configuration.limits.trustedProxies)
        let idleTimeout = configuration.limits.idleTimeout
        var application = Application(
            router: makeRouter(),
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [connections.handler(), MalformedRequestAnswer()],
                    idleTimeout: .nanoseconds(idleTimeout.components.seconds * 1_000_000_000 + idleTimeout.components.attoseconds / 1_000_000_000))),
            // The address the bind check judged, not the name again: a second lookup could answer otherwise.
            configuration: ApplicationConfiguration(address: .hostname(configuration.listeningHost(), port: configuration.port), serverName: "trawl"),
            onServerRunning: { channel in await onListening(host, channel.localAddress?.port ?? 0) },
            logger: logger)
        application.addServices(SessionService(registry: sessions))
        if let batches { application.addServices(BatchService(manager: batches)) }
        return application
    }

    /// Serves until SIGTERM or SIGINT, then stops gracefully: no new connections, requests in
    /// flight finish, running batches put their work in flight back in their stores.
    /// - Throws: ``ListenError`` when the address cannot be had or bound, in a sentence.
    public func run(onListening: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }) async throws {
        do {
            try await makeApplication(onListening: onListening).runService(gracefulShutdownSignals: [.sigterm, .sigint])
        } catch {
            throw ListenError.from(error, host: configuration.host, port: configuration.port) ?? error
        }
    }
}
