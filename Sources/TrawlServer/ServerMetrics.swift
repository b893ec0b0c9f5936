import Metrics
public import Prometheus
import Synchronization

/// The server's metrics, kept in its own Prometheus registry and served at `/metrics`.
///
/// Made through swift-metrics with an explicit factory rather than the process-wide
/// `MetricsSystem`: two servers in one process (tests) keep separate figures, and a library
/// never bootstraps a global.
///
/// | metric | type | labels |
/// |---|---|---|
/// | `trawl_http_requests_total` | counter | `route`, `method`, `status` |
/// | `trawl_http_requests_in_flight` | gauge | |
/// | `trawl_resolve_duration_seconds` | histogram | `outcome` (`ok`, `error`) |
/// | `trawl_resolves_in_flight`, `trawl_resolves_waiting` | gauge | |
/// | `trawl_fetches_total` | counter | `outcome` (`ok`, `http-404`, `timed-out`, …) |
/// | `trawl_cache_lookups_total` | counter | `result` (`hit`, `revalidated`, `miss`, `bypass`) |
/// | `trawl_browser_pages_rendered_total` | counter | `outcome` |
/// | `trawl_batches_running` | gauge | |
/// | `trawl_sessions_open` | gauge | |
/// | `trawl_batches_created_total` | counter | |
public final class ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    /// Counters by name and labels, so a hot route does not build a new one per request.
    private let counters = Mutex<[String: CoreMetrics.Counter]>([:])

    let requestsInFlight: Meter
    let resolvesInFlight: Meter
    let resolvesWaiting: Meter
    let batchesRunning: Meter
    let sessionsOpen: Meter

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["trawl_resolve_duration_seconds"] = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5),
            .seconds(10), .seconds(30), .seconds(60),
        ]
        self.factory = factory
        requestsInFlight = Meter(label: "trawl_http_requests_in_flight", factory: factory)
        resolvesInFlight = Meter(label: "trawl_resolves_in_flight", factory: factory)
        resolvesWaiting = Meter(label: "trawl_resolves_waiting", factory: factory)
        batchesRunning = Meter(label: "trawl_batches_running", factory: factory)
        sessionsOpen = Meter(label: "trawl_sessions_open", factory: factory)
        // Present from the start, at zero: a scrape before the first request shows every metric.
        for meter in [requestsInFlight, resolvesInFlight, resolvesWaiting, batchesRunning, sessionsOpen] { meter.set(0) }
        _ = counter("trawl_batches_created_total", [])
    }

    /// The Prometheus text exposition (version 0.0.4).
    public func exposition() -> [UInt8] {
        registry.emitToBuffer()
    }

    func recordRequest(route: String, method: String, status: Int) {
        counter("trawl_http_requests_total", [("route", route), ("method", method), ("status", String(status))]).increment()
    }

    func recordResolve(duration: Duration, ok: Bool) {
        CoreMetrics.Timer(label: "trawl_resolve_duration_seconds", dimensions: [("outcome", ok ? "ok" : "error")], factory: factory)
            .record(duration: duration)
    }

    func recordFetch(outcome: String) {
        counter("trawl_fetches_total", [("outcome", outcome)]).increment()
    }

    func recordCacheLookup(result: String) {
        counter("trawl_cache_lookups_total", [("result", result)]).increment()
    }

    func recordRenderedPage(outcome: String) {
        counter("trawl_browser_pages_rendered_total", [("outcome", outcome)]).increment()
    }

    func recordBatchCreated() {
        counter("trawl_batches_created_total", []).increment()
    }

    /// A batch deleted, by its client or because it expired.
    func recordBatchDeleted() {
        counter("trawl_batches_deleted_total", []).increment()
    }

    private func counter(_ name: String, _ labels: [(String, String)]) -> CoreMetrics.Counter {
        let key = name + labels.map { "|\($0.0)=\($0.1)" }.joined()
        return counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = CoreMetrics.Counter(label: name, dimensions: labels, factory: factory)
            counters[key] = counter
            return counter
        }
    }
}
