import Foundation
import Synchronization
import Testing
import Trawl
import TrawlCore
import TrawlFetch
import TrawlTesting

/// `resolve` goes through the same fetch policy as `batch`: Retry-After, backoff and the HTTP
/// cache, through the library and through the `trawl resolve` command.
@Suite("Resolve through the fetch policy", .timeLimit(.minutes(5)))
struct ResolvePolicyTests {
    /// Media URLs of every result set for `url`.
    func resolve(_ url: URL, policy: FetchPolicy, clock: any Clock<Duration> = ContinuousClock()) async throws -> [String] {
        var configuration = TrawlConfiguration(loader: LoaderConfiguration(timeout: .seconds(10)))
        configuration.fetch = policy
        configuration.clock = clock
        var media: [String] = []
        for try await set in SearchProvider(configuration).results(for: Request(url.absoluteString)) {
            media += set.media.map(\.url)
        }
        return media
    }

    /// Each path's first request gets `refusal`; then its page.
    func server(refusing refusal: TestResponse) throws -> LoopbackServer {
        let seen = Mutex<Set<String>>([])
        return try LoopbackServer { request in
            seen.withLock { $0.insert(request.path).inserted } ? refusal : BatchFixture.page(request.path)
        }
    }

    @Test("503 and 429 with Retry-After: resolve waits what the server asked and finds the media")
    func retryAfter() async throws {
        for status in [503, 429] {
            let server = try server(refusing: .status(status, headers: [("Retry-After", "1")]))
            defer { server.shutdown() }
            let clock = TestClock(automatic: true)
            let media = try await resolve(server.url("/gif/1"), policy: FetchPolicy(), clock: clock)
            #expect(media == ["https://media.test/_gif_1.gif"], "\(status)")
            #expect(server.requests.map(\.path) == ["/gif/1", "/gif/1"])
            #expect(clock.sleeps == [.seconds(1)])
        }
    }

    @Test("Without the policy (the library's default) a 503 is answered at once, with no media")
    func onceByDefault() async throws {
        let server = try server(refusing: .status(503, headers: [("Retry-After", "1")]))
        defer { server.shutdown() }
        let media = try? await resolve(server.url("/gif/1"), policy: .once, clock: TestClock(automatic: true))
        #expect(media ?? [] == [])
        #expect(server.requests.count == 1)
    }

    @Test("A cached page is served from the cache with no second request; cache-only misses are errors")
    func cache() async throws {
        let server = try LoopbackServer { request in
            guard case .ok(_, let headers, let body) = BatchFixture.page(request.path) else { return .hangUp }
            return .ok(headers: headers + [("Cache-Control", "max-age=600")], body: body)
        }
        defer { server.shutdown() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-resolve-cache-\(UUID().uuidString)")
        var policy = FetchPolicy()
        policy.cache = try FetchPolicy.Cache(directory: folder)
        let first = try await resolve(server.url("/gif/2"), policy: policy)
        let second = try await resolve(server.url("/gif/2"), policy: policy)
        #expect(first == ["https://media.test/_gif_2.gif"])
        #expect(second == first)
        #expect(server.requests.count == 1)

        policy.cache = try FetchPolicy.Cache(directory: folder, policy: .cacheOnly)
        #expect(try await resolve(server.url("/gif/2"), policy: policy) == first)
        await #expect(throws: (any Error).self) { try await resolve(server.url("/gif/never"), policy: policy) }
        #expect(server.requests.count == 1)
    }

    /// Runs `trawl resolve ARGS…` to its end; its exit status and standard output.
    func trawlResolve(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let binary = try #require(KillTests.trawlBinary, "the trawl executable is built beside the tests")
        let run = try await CommandRun.run(binary, ["resolve"] + arguments)
        return (run.status, run.stdout)
    }

    @Test("trawl resolve --cache DIR: the second run asks the server nothing", .tags(.process))
    func commandCache() async throws {
        let server = try LoopbackServer { request in
            guard case .ok(_, let headers, let body) = BatchFixture.page(request.path) else { return .hangUp }
            return .ok(headers: headers + [("Cache-Control", "max-age=600")], body: body)
        }
        defer { server.shutdown() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-resolve-cli-\(UUID().uuidString)").path
        let url = server.url("/gif/3").absoluteString
        let first = try await trawlResolve([url, "--json", "--cache", folder])
        let second = try await trawlResolve([url, "--json", "--cache", folder, "--cache-policy", "cache-only"])
        #expect(first.status == 0)
        #expect(second.status == 0)
        #expect(first.output.contains("https://media.test/_gif_3.gif"))
        #expect(second.output == first.output)
        #expect(server.requests.count == 1)
        let miss = try await trawlResolve([server.url("/gif/other").absoluteString, "--json", "--cache", folder, "--cache-policy", "cache-only"])
        #expect(miss.status == 3, "a cache-only miss is a failure")
        #expect(server.requests.count == 1)
    }

    @Test("trawl resolve retries a 503 with Retry-After; --retries 0 does not", .tags(.process))
    func commandRetryAfter() async throws {
        let server = try server(refusing: .status(503, headers: [("Retry-After", "1")]))
        defer { server.shutdown() }
        let retried = try await trawlResolve([server.url("/gif/4").absoluteString, "--json"])
        #expect(retried.status == 0)
        #expect(retried.output.contains("https://media.test/_gif_4.gif"))
        #expect(server.requests.map(\.path) == ["/gif/4", "/gif/4"])
        let once = try await trawlResolve([server.url("/gif/5").absoluteString, "--json", "--retries", "0"])
        #expect(once.status != 0)
        #expect(server.requests.filter { $0.path == "/gif/5" }.count == 1)
    }
}
