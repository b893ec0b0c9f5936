import Hummingbird
import TrawlCore

/// `GET /healthz` (is the server up: `{"status":"ok","version":…}`) and `GET /metrics`
/// (Prometheus text format, version 0.0.4).
struct HealthRoutes: Sendable {
    let metrics: ServerMetrics

    struct Health: Codable {
        var status: String
        var version: String
    }

    static let healthBody = JSONBody.encode(Health(status: "ok", version: TrawlVersion.string))

    /// `GET /healthz`: open to anyone (a load balancer's check has no token).
    func addHealth(to router: some RouterMethods<ServerRequestContext>) {
        router.get("/healthz") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: Self.healthBody)))
        }
    }

    /// `GET /metrics`: added to the group that checks the token.
    func addMetrics(to router: some RouterMethods<ServerRequestContext>) {
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
    }
}
