import Foundation
import Synchronization
import Testing
import TrawlCore
import TrawlFetch
import TrawlTesting

/// The fetch policy around real libcurl and a loopback server. Waits run on a test clock: they
/// are checked, never sat out.
@Suite("Fetch policy", .timeLimit(.minutes(3)))
struct PolicyTransportTests {
    func fetch(_ transport: any PayloadTransport, _ url: URL) async throws -> Payload {
        for try await payload in transport.payloads(for: FetchRequest(url: url), context: nil) { return payload }
        throw CancellationError()
    }

    /// Answers each path's first `failures` requests with `response`, then a page.
    func server(failing failures: Int, with response: TestResponse) throws -> LoopbackServer {
        let counts = Mutex<[String: Int]>([:])
        return try LoopbackServer { request in
            let n = counts.withLock {
                $0[request.path, default: 0] += 1; return $0[request.path]!
            }
            return n <= failures ? response : .html("<p>\(request.path)</p>")
        }
    }

    @Test("503 and 429 with Retry-After: the wait is what the server asked, then the retry succeeds")
    func retryAfter() async throws {
        for status in [503, 429] {
            let server = try server(failing: 1, with: .status(status, headers: [("Retry-After", "1")]))
            defer { server.shutdown() }
            let clock = TestClock(automatic: true)
            let transport = FetchPolicy().transport(over: Loader(), clock: clock)
            let payload = try await fetch(transport, server.url("/page"))
            #expect(payload.info.status == 200)
            #expect(server.requests.count == 2)
            #expect(clock.sleeps == [.seconds(1)], "\(status)")
        }
    }

    @Test("5xx retries after full-jitter backoffs drawn from the policy's random source")
    func backoff() async throws {
        let server = try server(failing: 2, with: .status(500))
        defer { server.shutdown() }
        let clock = TestClock(automatic: true)
        var policy = FetchPolicy()
        policy.random = { 0.5 }
        let payload = try await fetch(policy.transport(over: Loader(), clock: clock), server.url("/flaky"))
        #expect(payload.info.status == 200)
        #expect(server.requests.count == 3)
        // Half of the 1 s and 2 s ceilings.
        #expect(clock.sleeps == [.milliseconds(500), .seconds(1)])
    }

    @Test("When retries run out the last response is returned as it is; 404 and long Retry-After are not retried")
    func giveUp() async throws {
        let server = try LoopbackServer { request in
            switch request.path {
            case "/down": .status(502)
            case "/gone": .status(404)
            default: .status(503, headers: [("Retry-After", "3600")])
            }
        }
        defer { server.shutdown() }
        let clock = TestClock(automatic: true)
        var policy = FetchPolicy()
        policy.retries = 2
        let transport = policy.transport(over: Loader(), clock: clock)
        #expect(try await fetch(transport, server.url("/down")).info.status == 502)
        #expect(try await fetch(transport, server.url("/gone")).info.status == 404)
        #expect(try await fetch(transport, server.url("/later")).info.status == 503)
        #expect(server.requests.map(\.path) == ["/down", "/down", "/down", "/gone", "/later"])
    }

    @Test("A transient transfer error (connection lost) is retried; the last error is thrown")
    func transferErrors() async throws {
        let server = try LoopbackServer { _ in .hangUp }
        defer { server.shutdown() }
        var policy = FetchPolicy()
        policy.retries = 1
        let transport = policy.transport(over: Loader(), clock: TestClock(automatic: true))
        await #expect(throws: FetchError.self) { try await fetch(transport, server.url("/reset")) }
        #expect(server.requests.count == 2)
    }

    @Test("No more than perHost requests to one host at once")
    func perHost() async throws {
        let inFlight = ConcurrencyMeter()
        let server = try LoopbackServer { request in
            inFlight.enter("host")
            // Hold each request until a second one arrives (or half a second passes): a gate
            // that let more through would show them all in flight together.
            inFlight.waitUntil("host", inFlight: 2, before: Date().addingTimeInterval(0.5))
            inFlight.leave("host")
            return .html("<p>\(request.path)</p>")
        }
        defer { server.shutdown() }
        var policy = FetchPolicy()
        policy.perHost = 2
        let transport = policy.transport(over: Loader())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 1...6 { group.addTask { _ = try await fetch(transport, server.url("/\(n)")) } }
            try await group.waitForAll()
        }
        #expect(server.requests.count == 6)
        #expect(inFlight.peaks["host"] == 2)
    }

    @Test("Starts to one host are at least the delay apart")
    func delay() async throws {
        let server = try server(failing: 0, with: .status(500))
        defer { server.shutdown() }
        let clock = TestClock(automatic: true)
        var policy = FetchPolicy()
        policy.delay = .seconds(1)
        let transport = policy.transport(over: Loader(), clock: clock)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 1...3 { group.addTask { _ = try await fetch(transport, server.url("/\(n)")) } }
            try await group.waitForAll()
        }
        #expect(server.requests.count == 3)
        // Three starts a second apart: the third waited until 2 s.
        #expect(clock.now.offset == .seconds(2))
    }

    @Test("The cache sits outside the retries: a fresh hit asks nothing, a 503 is not cached")
    func cacheOutside() async throws {
        let server = try LoopbackServer { request in
            request.path == "/fresh" ? .ok(headers: [("Cache-Control", "max-age=600")], body: Data("kept".utf8)) : .status(503)
        }
        defer { server.shutdown() }
        var policy = FetchPolicy()
        policy.retries = 1
        policy.cache = try FetchPolicy.Cache(directory: FileManager.default.temporaryDirectory.appendingPathComponent("trawl-policy-\(UUID().uuidString)"))
        let transport = policy.transport(over: Loader(), clock: TestClock(automatic: true))
        _ = try await fetch(transport, server.url("/fresh"))
        let hit = try await fetch(transport, server.url("/fresh"))
        #expect(hit.info.headers[CachingTransport.statusHeader] == "hit")
        #expect(try await fetch(transport, server.url("/busy")).info.status == 503)
        #expect(try await fetch(transport, server.url("/busy")).info.status == 503)
        #expect(server.requests.map(\.path) == ["/fresh", "/busy", "/busy", "/busy", "/busy"])
    }

    /// What a streamed read of the parts ends with: each response's status and body, a head
    /// before the last response's end starting it over, as a reader of parts does.
    func streamed(_ transport: any PayloadTransport, _ url: URL) async throws -> [(Int, Data)] {
        var responses: [(Int, Data)] = []
        var open: (Int, Data)?
        for try await part in transport.parts(for: FetchRequest(url: url), context: nil) {
            switch part {
            case .head(let info, _): open = (info.status, Data())
            case .body(let piece): open?.1.append(piece)
            case .end: if let response = open { responses.append(response) }; open = nil
            case .whole: Issue.record("a whole payload: the policy did not stream the response")
            }
        }
        return responses
    }

    @Test("Streamed: a 503 is judged by its head and retried; only the answer that stands is read")
    func streamedRetryAfterStatus() async throws {
        let server = try server(failing: 2, with: .status(503))
        defer { server.shutdown() }
        let clock = TestClock(automatic: true)
        let transport = FetchPolicy().transport(over: Loader(), clock: clock)
        let responses = try await streamed(transport, server.url("/page"))
        #expect(responses.map(\.0) == [200])
        #expect(responses.first?.1 == Data("<p>/page</p>".utf8))
        #expect(server.requests.count == 3)
        #expect(clock.sleeps.count == 2)
    }

    @Test("Streamed: a body cut short is tried again from a new head, and the reader keeps the whole one")
    func streamedRetryMidBody() async throws {
        let server = try server(
            failing: 1, with: .truncated(headers: [("Content-Type", "text/html")], declaredLength: 100_000, body: Data(repeating: 0x41, count: 1000)))
        defer { server.shutdown() }
        let transport = FetchPolicy().transport(over: Loader(), clock: TestClock(automatic: true))
        let responses = try await streamed(transport, server.url("/cut"))
        #expect(responses.map(\.0) == [200])
        #expect(responses.first?.1 == Data("<p>/cut</p>".utf8))
        #expect(server.requests.count == 2)
    }

    @Test("Streamed: when the retries run out the last error is thrown")
    func streamedTransferErrors() async throws {
        let server = try LoopbackServer { _ in .hangUp }
        defer { server.shutdown() }
        var policy = FetchPolicy()
        policy.retries = 1
        let transport = policy.transport(over: Loader(), clock: TestClock(automatic: true))
        await #expect(throws: FetchError.self) { try await streamed(transport, server.url("/reset")) }
        #expect(server.requests.count == 2)
    }
}
