import Foundation
import Testing
import TrawlCore
import TrawlTesting

@testable import TrawlFetch

/// Names reserved for loopback are refused by name, and a cache answers a guarded fetch only
/// with what the guard would have let it fetch. Every connection goes to loopback.
@Suite("Address guard: loopback names and the HTTP cache")
struct GuardedCacheTests {
    static let loopbackNames = ["localhost", "LOCALHOST.", "LocalHost", "a.localhost", "A.B.LOCALHOST.", "x.localhost."]

    @Test(arguments: loopbackNames)
    func loopbackNamesAreRefusedWithoutALookup(name: String) async throws {
        #expect(AddressPolicy.denyPrivate.decision(forHost: name) == .refused(.loopback), "\(name)")
        #expect(AddressPolicy.allowAll.decision(forHost: name) == nil)
        // Opening loopback (both families) lets the name be resolved and its answers checked.
        let open = AddressPolicy.denyPrivate.allowing(try AddressRange(parsing: "127.0.0.0/8")).allowing(try AddressRange(parsing: "::1"))
        #expect(open.decision(forHost: name) == nil)
        let resolver = RebindingResolver(answers: ["127.0.0.1"])
        await #expect(throws: FetchError.self) { try await AddressPolicy.denyPrivate.check(host: name, port: 80, resolver: resolver) }
        #expect(resolver.lookups == 0, "refused by name: \(name) was looked up")
    }

    @Test func aGuardedLoaderRefusesLoopbackNamesBeforeConnecting() async throws {
        let inside = try LoopbackServer { _ in .html("<p>inside secret</p>") }
        defer { inside.shutdown() }
        for name in ["LOCALHOST.", "api.localhost"] {
            // Mapped onto the server, so a name that got through would reach it.
            let configuration = LoaderConfiguration(connectTo: ["\(name):\(inside.port):127.0.0.1:\(inside.port)"], addressPolicy: .denyPrivate)
            do {
                let payload = try await Loader(configuration: configuration).fetch(FetchRequest(url: URL(string: "http://\(name):\(inside.port)/")!))
                Issue.record("fetched \(payload.info.url)")
            } catch let error as FetchError {
                #expect(error.code == .refusedAddress && error.message.contains("'\(name)'"), "\(error)")
            }
        }
        #expect(inside.requests.isEmpty)
    }

    /// The page every test caches: fresh for an hour.
    static func server(host: String = "127.0.0.1") throws -> LoopbackServer {
        try LoopbackServer(host: host) { _ in
            .ok(headers: [("Content-Type", "text/html"), ("Cache-Control", "max-age=3600")], body: Data("<p>inside secret</p>".utf8))
        }
    }

    func fetch(
        _ url: String, folder: URL, policy: AddressPolicy, connectTo: [String] = [], cachePolicy: CachePolicy = .useProtocolPolicy
    ) async throws -> Payload {
        var fetchPolicy = FetchPolicy.once
        fetchPolicy.cache = try FetchPolicy.Cache(directory: folder, policy: cachePolicy)
        let loader = Loader(configuration: LoaderConfiguration(timeout: .seconds(10), connectTo: connectTo, addressPolicy: policy))
        let transport = fetchPolicy.transport(over: loader, addressPolicy: policy)
        for try await payload in transport.payloads(for: FetchRequest(url: URL(string: url)!), context: nil) { return payload }
        throw CancellationError()
    }

    func expectRefusal(_ host: String, _ body: () async throws -> Payload) async {
        do {
            let payload = try await body()
            Issue.record("answered \(payload.info.url) (\(payload.info.headers[CachingTransport.statusHeader] ?? "?")): \(payload.text)")
        } catch let error as FetchError {
            #expect(error.code == .refusedAddress, "\(error)")
            #expect(error.message.contains("'\(host)'"), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test(arguments: [CachePolicy.useProtocolPolicy, .returnCacheElseLoad, .cacheOnly])
    func aCacheAnUnguardedRunFilledDoesNotAnswerAGuardedOne(cachePolicy: CachePolicy) async throws {
        let inside = try Self.server()
        defer { inside.shutdown() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-guarded-cache-\(UUID().uuidString)")
        let literal = "http://127.0.0.1:\(inside.port)/page"
        let name = "http://intranet.test:\(inside.port)/page"
        let mapped = ["intranet.test:\(inside.port):127.0.0.1:\(inside.port)"]
        // An unguarded run fills the cache with both.
        #expect(try await fetch(literal, folder: folder, policy: .allowAll).text.contains("inside secret"))
        #expect(try await fetch(name, folder: folder, policy: .allowAll, connectTo: mapped).text.contains("inside secret"))
        #expect(
            try await fetch(name, folder: folder, policy: .allowAll, connectTo: mapped, cachePolicy: cachePolicy).info.headers[CachingTransport.statusHeader]
                == "hit")
        #expect(inside.requests.count == 2)

        // A guarded one: the literal is refused by its host; the name is not served from the
        // cache (it was stored unguarded), and the live fetch it falls to is refused.
        await expectRefusal("127.0.0.1") { try await fetch(literal, folder: folder, policy: .denyPrivate, cachePolicy: cachePolicy) }
        if cachePolicy == .cacheOnly {
            await #expect(throws: FetchError.self) { try await fetch(name, folder: folder, policy: .denyPrivate, connectTo: mapped, cachePolicy: cachePolicy) }
        } else {
            await expectRefusal("intranet.test") { try await fetch(name, folder: folder, policy: .denyPrivate, connectTo: mapped, cachePolicy: cachePolicy) }
        }
        #expect(inside.requests.count == 2, "the guarded run reached nothing inside")
    }

    @Test func aGuardedRunIsServedWhatAGuardAsStrictStored() async throws {
        let allowed = try Self.server(host: "127.0.0.2")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-guarded-cache-\(UUID().uuidString)")
        let url = "http://pages.test:\(allowed.port)/page"
        let mapped = ["pages.test:\(allowed.port):127.0.0.2:\(allowed.port)"]
        let policy = AddressPolicy.denyPrivate.allowing(try AddressRange(parsing: "127.0.0.2/32"))
        let first = try await fetch(url, folder: folder, policy: policy, connectTo: mapped)
        #expect(first.info.headers[CachingTransport.statusHeader] == "miss")
        allowed.shutdown()
        // The server is gone: only the cache can answer.
        let again = try await fetch(url, folder: folder, policy: policy, connectTo: mapped)
        #expect(again.info.headers[CachingTransport.statusHeader] == "hit")
        #expect(again.text.contains("inside secret"))
        let unguarded = try await fetch(url, folder: folder, policy: .allowAll, connectTo: mapped, cachePolicy: .cacheOnly)
        #expect(unguarded.info.headers[CachingTransport.statusHeader] == "hit")
        // A stricter guard (no range open) was not what checked that fetch: not from the cache.
        await #expect(throws: FetchError.self) { try await fetch(url, folder: folder, policy: .denyPrivate, connectTo: mapped, cachePolicy: .cacheOnly) }
    }
}
