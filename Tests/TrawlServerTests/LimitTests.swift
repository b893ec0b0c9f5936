import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TrawlCore
import TrawlFetch
import TrawlTesting

@testable import TrawlServer

/// Rate limit, bearer token, CORS, request timeout, body size, and the status of each error.
@Suite("Limits", .timeLimit(.minutes(5)))
struct LimitTests {
    @Test func rateLimitAnswers429WithRetryAfter() async throws {
        let server = try ServerFixture.replaying {
            // One request per 100 s after the burst: however slow the machine, the fourth is refused.
            $0.limits.rate = 0.01
            $0.limits.burst = 3
        }
        try await ServerFixture.application(server).test(.router) { client in
            for _ in 0..<3 {
                let response = try await client.execute(uri: "/v1/resolve?q=\(encoded(giphyCatPage))", method: .get)
                #expect(response.status == .ok)
            }
            let limited = try await client.execute(uri: "/v1/resolve?q=\(encoded(giphyCatPage))", method: .get)
            #expect(limited.status == .tooManyRequests)
            #expect(try limited.errorCode() == "rate-limited")
            let retryAfter = try #require(limited.headers[.retryAfter].flatMap(Int.init))
            #expect(retryAfter >= 1 && retryAfter <= 100)
            // Health checks and the page are not counted.
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/", method: .get).status == .ok)
        }
    }

    @Test func rateLimiterRefillsAtItsRate() {
        let limiter = RateLimiter(rate: 2, burst: 2)
        let start = ContinuousClock.now
        #expect(limiter.admit("a", now: start) == .allowed)
        #expect(limiter.admit("a", now: start) == .allowed)
        #expect(limiter.admit("a", now: start) == .limited(retryAfter: 1))
        // Another client has its own bucket.
        #expect(limiter.admit("b", now: start) == .allowed)
        #expect(limiter.admit("a", now: start + .milliseconds(400)) != .allowed)
        #expect(limiter.admit("a", now: start + .milliseconds(600)) == .allowed)
    }

    @Test func tokenGuardsTheAPIAndMetricsButNotHealthOrThePage() async throws {
        let server = try ServerFixture.replaying { $0.limits.token = "s3cret-token" }
        try await ServerFixture.application(server).test(.router) { client in
            let uri = "/v1/resolve?q=\(encoded(giphyCatPage))"
            let missing = try await client.execute(uri: uri, method: .get)
            #expect(missing.status == .unauthorized)
            #expect(try missing.errorCode() == "unauthorized")
            #expect(missing.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            let wrong = try await client.execute(uri: uri, method: .get, headers: [.authorization: "Bearer s3cret-tokeN"])
            #expect(wrong.status == .unauthorized)
            #expect(!wrong.text.contains("s3cret"))
            let right = try await client.execute(uri: uri, method: .get, headers: [.authorization: "Bearer s3cret-token"])
            #expect(right.status == .ok)
            #expect(try await client.execute(uri: "/metrics", method: .get).status == .unauthorized)
            #expect(try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer s3cret-token"]).status == .ok)
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/", method: .get).status == .ok)
        }
    }

    @Test func corsAllowsTheConfiguredOriginOnly() async throws {
        let server = try ServerFixture.replaying { $0.limits.corsOrigins = ["https://app.example"] }
        try await ServerFixture.application(server).test(.router) { client in
            let preflight = try await client.execute(
                uri: "/v1/resolve", method: .options,
                headers: [.origin: "https://app.example", .accessControlRequestMethod: "GET"])
            #expect(preflight.status == .noContent)
            #expect(preflight.headers[.accessControlAllowOrigin] == "https://app.example")
            #expect(preflight.headers[.accessControlAllowHeaders]?.contains("Authorization") == true)
            // Sessions and batches are closed and deleted from apps too.
            #expect(preflight.headers[.accessControlAllowMethods]?.contains("DELETE") == true)
            let allowed = try await client.execute(uri: "/healthz", method: .get, headers: [.origin: "https://app.example"])
            #expect(allowed.headers[.accessControlAllowOrigin] == "https://app.example")
            // Errors carry it too, so the app can read them.
            let error = try await client.execute(uri: "/v1/resolve", method: .get, headers: [.origin: "https://app.example"])
            #expect(error.status == .badRequest)
            #expect(error.headers[.accessControlAllowOrigin] == "https://app.example")
            let other = try await client.execute(uri: "/healthz", method: .get, headers: [.origin: "https://evil.example"])
            #expect(other.headers[.accessControlAllowOrigin] == nil)
        }
    }

    @Test func aResolveOverTheRequestTimeoutIs504() async throws {
        // The page sends its head, then a byte every two seconds: far past the half second allowed.
        let site = try LoopbackServer { _ in
            .drip(headers: [("Content-Type", "text/html")], chunks: Array(repeating: Data("<p>".utf8), count: 5), interval: .seconds(2))
        }
        defer { site.shutdown() }
        let server = try ServerFixture.live(site: site, hosts: ["slow.test"]) { $0.limits.requestTimeout = .milliseconds(500) }
        try await ServerFixture.application(server).test(.router) { client in
            for accept in ["application/json", "application/x-ndjson"] {
                let response = try await client.execute(
                    uri: "/v1/resolve?q=\(encoded("http://slow.test/page"))", method: .get, headers: [.accept: accept])
                #expect(response.status == .gatewayTimeout, "\(response.text)")
                #expect(try response.errorCode() == "request-timed-out")
            }
        }
    }

    @Test func errorsMapToTheirStatus() {
        let cases: [(any Error, Int, String)] = [
            (FetchError(.refusedAddress, url: "http://internal.example/", message: "refused: a private address"), 403, "refused-address"),
            (FetchError(.timedOut, url: "http://a.example/", message: "timed out"), 504, "timed-out"),
            (FetchError(.hostNotFound, url: "http://a.example/", message: "no such host"), 502, "host-not-found"),
            (SearchError(.invalidURL, "'http://' is not a URL"), 400, "invalid-url"),
            (SearchError(.missingConfiguration, "no key"), 503, "missing-configuration"),
            (CancellationError(), 499, "cancelled"),
        ]
        for (error, status, code) in cases {
            let answer = ErrorStatus.apiError(for: error)
            #expect(Int(answer.status.code) == status && answer.code == code, "\(error): \(answer)")
        }
        // Upstream HTTP failures are the gateway's problem, not the client's.
        #expect(ErrorStatus.status(for: "http-404") == .badGateway)
        #expect(ErrorStatus.status(for: "http-503") == .badGateway)
    }

    @Test func concurrentResolvesWaitForASlot() async throws {
        let slots = ResolveSlots(limit: 1)
        let (gate, open) = AsyncStream<Void>.makeStream()
        let (entered, enteredSignal) = AsyncStream<Int>.makeStream()
        let first = Task {
            try await slots.withSlot(client: "a", metrics: nil) {
                enteredSignal.yield(1)
                for await _ in gate { break }
            }
        }
        var order = entered.makeAsyncIterator()
        #expect(await order.next() == 1)
        let second = Task { try await slots.withSlot(client: "b", metrics: nil) { _ = enteredSignal.yield(2) } }
        // The second cannot enter while the first holds the only slot: a third that is
        // cancelled while waiting leaves the queue without ever entering.
        let third = Task { try await slots.withSlot(client: "c", metrics: nil) { _ = enteredSignal.yield(3) } }
        third.cancel()
        await #expect(throws: CancellationError.self) { try await third.value }
        open.yield()
        try await first.value
        try await second.value
        #expect(await order.next() == 2)
        enteredSignal.finish()
        #expect(await order.next() == nil)
    }
}
