import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TrawlServer
import TrawlTesting

/// `/metrics` scraped and parsed after real traffic.
@Suite("GET /metrics", .timeLimit(.minutes(5)))
struct MetricsTests {
    @Test func requestsResolvesAndFetchesAreCounted() async throws {
        let server = try ServerFixture.replaying()
        try await ServerFixture.application(server).test(.router) { client in
            let empty = try PrometheusText(try await client.execute(uri: "/metrics", method: .get).text)
            // Every gauge is there from the start, at zero.
            #expect(empty.value("trawl_resolves_in_flight") == 0)
            #expect(empty.value("trawl_batches_running") == 0)

            #expect(try await client.execute(uri: "/v1/resolve?q=\(encoded(giphyCatPage))", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/v1/resolve?q=\(encoded(giphyCatPage))", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/v1/resolve?limit=0&q=x", method: .get).status == .badRequest)
            #expect(try await client.execute(uri: "/nowhere", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)

            let response = try await client.execute(uri: "/metrics", method: .get)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let metrics = try PrometheusText(response.text)
            #expect(metrics.value("trawl_http_requests_total", ["route": "/v1/resolve", "method": "GET", "status": "200"]) == 2)
            #expect(metrics.value("trawl_http_requests_total", ["route": "/v1/resolve", "status": "400"]) == 1)
            #expect(metrics.value("trawl_http_requests_total", ["status": "404"]) == 1)
            #expect(metrics.value("trawl_http_requests_total", ["route": "/healthz", "status": "200"]) == 1)
            #expect(metrics.types["trawl_resolve_duration_seconds"] == "histogram")
            #expect(metrics.value("trawl_resolve_duration_seconds_count", ["outcome": "ok"]) == 2)
            #expect(metrics.value("trawl_resolve_duration_seconds_bucket", ["outcome": "ok", "le": "+Inf"]) == 2)
            #expect((metrics.value("trawl_fetches_total", ["outcome": "ok"]) ?? 0) >= 2)
            #expect(metrics.value("trawl_resolves_in_flight") == 0)
            #expect(metrics.value("trawl_resolves_waiting") == 0)
            // This scrape is itself in flight.
            #expect(metrics.value("trawl_http_requests_in_flight") == 1)
        }
    }

    @Test func cacheHitsAndFailedFetchesAreCounted() async throws {
        let site = try LoopbackServer { request in
            request.path == "/missing"
                ? .status(404)
                : .ok(
                    headers: [("Content-Type", "text/html"), ("Cache-Control", "max-age=600")],
                    body: Data("<html><head><meta property=\"og:image\" content=\"https://media.test/a.gif\"></head></html>".utf8))
        }
        defer { site.shutdown() }
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-serve-cache-\(UUID().uuidString)")
        let server = try ServerFixture.live(site: site, hosts: ["cached.test"]) {
            $0.trawl.fetch.cache = try? .init(directory: cache)
        }
        try await ServerFixture.application(server).test(.router) { client in
            for _ in 0..<3 {
                #expect(try await client.execute(uri: "/v1/resolve?q=\(encoded("http://cached.test/page"))", method: .get).status == .ok)
            }
            let missing = try await client.execute(uri: "/v1/resolve?q=\(encoded("http://cached.test/missing"))", method: .get)
            #expect(missing.status == .badGateway, "\(missing.text)")
            #expect(try missing.errorCode() == "http-404")
            let metrics = try PrometheusText(try await client.execute(uri: "/metrics", method: .get).text)
            // The page once and the missing page (a 404 is stored and answered too).
            #expect(metrics.value("trawl_cache_lookups_total", ["result": "miss"]) == 2)
            #expect(metrics.value("trawl_cache_lookups_total", ["result": "hit"]) == 2)
            #expect(metrics.value("trawl_fetches_total", ["outcome": "http-404"]) == 1)
        }
        #expect(site.requests.filter { $0.path == "/page" }.count == 1)
    }
}
