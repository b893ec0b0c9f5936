import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TrawlBatch
import TrawlFetch
import TrawlTesting

@testable import TrawlServer

/// What one client may hold of the server: batches (and their files), sessions, resolve slots,
/// connections; and who a client is behind a proxy.
@Suite("Per-client caps", .timeLimit(.minutes(3)))
struct ServerCapTests {
    /// Descriptors this process has open now.
    static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    @Test func finishedBatchesCloseTheirFilesAndCanBeDeleted() async throws {
        let site = try LoopbackServer { request in ServerFixture.page(request.path) }
        defer { site.shutdown() }
        let server = try ServerFixture.live(site: site, hosts: ["a.test"]) { $0.batchLimits.maxRunningPerClient = 100 }
        let folder = try #require(server.configuration.batchDirectory)
        try await ServerFixture.application(server).test(.live) { client in
            func post() async throws -> String {
                let created = try await client.execute(
                    uri: "/v1/batches", method: .post, headers: [.contentType: "text/plain"], body: ByteBuffer(string: "http://a.test/one\nhttp://a.test/two\n")
                )
                #expect(created.status == .accepted, "\(created.text)")
                return try #require(try created.json()["id"] as? String)
            }
            // A first batch sets up what every batch shares (the loader, the folder).
            let first = try await post()
            _ = try await BatchRouteTests.waitUntilFinished(client, id: first)
            let before = Self.openDescriptors()
            var ids: [String] = []
            for _ in 0..<30 {
                let id = try await post()
                let status = try await BatchRouteTests.waitUntilFinished(client, id: id)
                #expect(status["state"] as? String == "finished", "\(status)")
                ids.append(id)
            }
            // A finished batch keeps no descriptor (five each would make 150 here).
            let after = Self.openDescriptors()
            #expect(after - before < 15, "descriptors: \(before) before 30 batches, \(after) after")

            let id = ids[0]
            let results = try await client.execute(uri: "/v1/batches/\(id)/results", method: .get)
            #expect(results.text.split(separator: "\n").count == 2)
            let deleted = try await client.execute(uri: "/v1/batches/\(id)", method: .delete)
            #expect(deleted.status == .noContent, "\(deleted.text)")
            #expect(try await client.execute(uri: "/v1/batches/\(id)", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/v1/batches/\(id)/results", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/v1/batches/\(id)", method: .delete).status == .notFound)
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(left.filter { $0.hasPrefix(id) }.isEmpty, "\(left)")
        }
    }

    @Test func aRunningBatchCanBeDeleted() async throws {
        // Pages that take 60 s: the batch is still running when it is deleted.
        let site = try LoopbackServer { _ in
            .drip(headers: [("Content-Type", "text/html")], chunks: Array(repeating: Data("<p>".utf8), count: 30), interval: .seconds(2))
        }
        defer { site.shutdown() }
        let server = try ServerFixture.live(site: site, hosts: ["slow.test"])
        try await ServerFixture.application(server).test(.live) { client in
            let created = try await client.execute(uri: "/v1/batches", method: .post, body: ByteBuffer(string: "http://slow.test/a\n"))
            let id = try #require(try created.json()["id"] as? String)
            #expect(try await client.execute(uri: "/v1/batches/\(id)", method: .get).json()["state"] as? String == "running")
            #expect(try await client.execute(uri: "/v1/batches/\(id)", method: .delete).status == .noContent)
            #expect(try await client.execute(uri: "/v1/batches/\(id)", method: .get).status == .notFound)
        }
    }

    @Test func batchCapsAnswer429ForAClientAnd503ForTheServer() async throws {
        let site = try LoopbackServer { _ in
            .drip(headers: [("Content-Type", "text/html")], chunks: Array(repeating: Data("<p>".utf8), count: 30), interval: .seconds(2))
        }
        defer { site.shutdown() }
        let server = try ServerFixture.live(site: site, hosts: ["slow.test"]) {
            $0.batchLimits.maxRunningPerClient = 1
            $0.batchLimits.maxStoredPerClient = 2
        }
        try await ServerFixture.application(server).test(.router) { client in
            let first = try await client.execute(uri: "/v1/batches", method: .post, body: ByteBuffer(string: "http://slow.test/a\n"))
            #expect(first.status == .accepted)
            let second = try await client.execute(uri: "/v1/batches", method: .post, body: ByteBuffer(string: "http://slow.test/b\n"))
            #expect(second.status == .tooManyRequests, "\(second.text)")
            #expect(try second.errorCode() == "too-many-batches")
            #expect(second.headers[.retryAfter] != nil)
            let id = try #require(try first.json()["id"] as? String)
            #expect(try await client.execute(uri: "/v1/batches/\(id)", method: .delete).status == .noContent)
        }
        let busy = try ServerFixture.live(site: site, hosts: ["slow.test"]) {
            $0.batchLimits.maxRunning = 1
        }
        try await ServerFixture.application(busy).test(.router) { client in
            #expect(try await client.execute(uri: "/v1/batches", method: .post, body: ByteBuffer(string: "http://slow.test/a\n")).status == .accepted)
            let refused = try await client.execute(uri: "/v1/batches", method: .post, body: ByteBuffer(string: "http://slow.test/b\n"))
            #expect(refused.status == .serviceUnavailable)
            #expect(try refused.errorCode() == "server-busy")
        }
    }

    @Test func aClientKeepsOnlySoManyBatchesAndFinishedOnesExpire() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-expire-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let site = try LoopbackServer { request in ServerFixture.page(request.path) }
        defer { site.shutdown() }
        var configuration = BatchConfiguration()
        configuration.resolve.loader.connectTo = ["a.test:80:127.0.0.1:\(site.port)"]
        var limits = BatchLimits()
        limits.maxStoredPerClient = 2
        limits.timeToLive = .seconds(3600)
        let manager = BatchManager(
            directory: folder, configuration: configuration, search: .init(), metrics: ServerMetrics(), logger: .init(label: "test"), limits: limits)
        let one = try await manager.create(list: "http://a.test/1\n", client: "a")
        let two = try await manager.create(list: "http://a.test/2\n", client: "a")
        await #expect(throws: APIError.self) { try await manager.create(list: "http://a.test/3\n", client: "a") }
        // Another client has its own allowance.
        let other = try await manager.create(list: "http://a.test/4\n", client: "b")
        for id in [one, two, other] { await manager.waitUntilEnded(id) }
        // Not yet an hour old: kept. An hour later: gone, and the client may post again.
        #expect(await manager.expire().isEmpty)
        let expired = await manager.expire(now: Date().addingTimeInterval(3601))
        #expect(Set(expired) == Set([one, two, other]))
        await #expect(throws: APIError.self) { try await manager.status(one) }
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(left.isEmpty, "\(left)")
        _ = try await manager.create(list: "http://a.test/5\n", client: "a")
        await manager.shutdown()
    }

    @Test func aClientHasOnlySoManySessions() async throws {
        let server = try ServerFixture.replaying {
            $0.limits.maxSessionsPerClient = 2
            $0.limits.maxSessions = 10
        }
        try await ServerFixture.application(server).test(.router) { client in
            for _ in 0..<2 { #expect(try await client.execute(uri: "/v1/sessions", method: .post).status == .created) }
            let refused = try await client.execute(uri: "/v1/sessions", method: .post)
            #expect(refused.status == .tooManyRequests)
            #expect(try refused.errorCode() == "too-many-sessions")
        }
    }

    @Test func aClientHasOnlySoManyResolveSlots() async throws {
        let slots = ResolveSlots(limit: 4, perClientLimit: 1)
        let (gate, open) = AsyncStream<Void>.makeStream()
        let (entered, signal) = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await slots.withSlot(client: "a", metrics: nil) {
                signal.yield()
                for await _ in gate { break }
            }
        }
        var iterator = entered.makeAsyncIterator()
        await iterator.next()
        await #expect(throws: APIError.self) { try await slots.withSlot(client: "a", metrics: nil) {} }
        // Another client still gets a slot at once.
        try await slots.withSlot(client: "b", metrics: nil) {}
        open.yield()
        try await holder.value
        // The slot is given back: the client may resolve again.
        try await slots.withSlot(client: "a", metrics: nil) {}
    }

    @Test func aTrustedProxyNamesTheClient() async throws {
        let middleware = ClientAddressMiddleware(trustedProxies: [try AddressRange(parsing: "10.0.0.0/8"), try AddressRange(parsing: "127.0.0.1")])
        #expect(middleware.forwardedClient(["203.0.113.5"]) == "203.0.113.5")
        #expect(middleware.forwardedClient(["198.51.100.1, 203.0.113.5, 10.1.2.3"]) == "203.0.113.5")
        #expect(middleware.forwardedClient(["198.51.100.1", "203.0.113.5:4711"]) == "203.0.113.5")
        // IPv6 clients are their /64; a mapped IPv4 address is that address.
        #expect(middleware.forwardedClient(["[2001:db8::1]:443"]) == "2001:db8::/64")
        #expect(middleware.forwardedClient(["2001:db8:0:0:ffff::9"]) == "2001:db8::/64")
        #expect(middleware.forwardedClient(["2001:db8:0:1::9"]) == "2001:db8:0:1::/64")
        #expect(middleware.forwardedClient(["::ffff:203.0.113.5"]) == "203.0.113.5")
        #expect(middleware.forwardedClient(["not-an-address"]) == nil)
        #expect(middleware.forwardedClient(["10.0.0.1"]) == nil)

        // Behind a trusted proxy on loopback: each forwarded client has its own bucket.
        let proxied = try ServerFixture.replaying {
            $0.limits.rate = 0.01
            $0.limits.burst = 1
            $0.limits.trustedProxies = [try! AddressRange(parsing: "127.0.0.1")]
        }
        try await ServerFixture.application(proxied).test(.live) { client in
            let raw = RawHTTP(port: try #require(client.port))
            let page = SecurityTests.page
            #expect(try await raw.send("GET", page, headers: [("X-Forwarded-For", "203.0.113.5")]).status == 200)
            #expect(try await raw.send("GET", page, headers: [("X-Forwarded-For", "203.0.113.5")]).status == 429)
            #expect(try await raw.send("GET", page, headers: [("X-Forwarded-For", "203.0.113.6")]).status == 200)
        }
        // Without one, what a client says of itself is ignored.
        let direct = try ServerFixture.replaying {
            $0.limits.rate = 0.01
            $0.limits.burst = 1
        }
        try await ServerFixture.application(direct).test(.live) { client in
            let raw = RawHTTP(port: try #require(client.port))
            #expect(try await raw.send("GET", SecurityTests.page, headers: [("X-Forwarded-For", "203.0.113.5")]).status == 200)
            #expect(try await raw.send("GET", SecurityTests.page, headers: [("X-Forwarded-For", "203.0.113.6")]).status == 429)
        }
    }

    @Test func aConnectionThatTricklesItsHeadersIsClosed() async throws {
        let server = try ServerFixture.replaying { $0.limits.idleTimeout = .milliseconds(500) }
        try await ServerFixture.application(server).test(.live) { client in
            let raw = RawHTTP(port: try #require(client.port))
            let socket = try raw.connect()
            defer { close(socket) }
            // A byte every 200 ms: each arrives well inside the timeout, the head never completes.
            var closed = false
            for byte in Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 200) {
                var one = byte
                if send(socket, &one, 1, Int32(MSG_NOSIGNAL)) != 1 {
                    closed = true
                    break
                }
                try await Task.sleep(for: .milliseconds(200))  // the trickle itself, not a wait
            }
            #expect(closed, "the server kept a connection whose head never completed for 40 s")
        }
    }

    @Test func aClientHasOnlySoManyConnections() async throws {
        let server = try ServerFixture.replaying { $0.limits.maxConnectionsPerClient = 2 }
        try await ServerFixture.application(server).test(.live) { client in
            let raw = RawHTTP(port: try #require(client.port))
            let request = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
            /// Sends one keep-alive request on `socket`; the bytes of its answer (none: closed).
            func ask(_ socket: Int32) async throws -> Int {
                try await offPool("raw-http") {
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    _ = request.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    return buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                }
            }
            // Connections answered once each and kept open, until one is refused (the test
            // client may hold one of the two itself).
            var held: [Int32] = []
            var refused = false
            for _ in 0..<3 where !refused {
                let socket = try raw.connect()
                if try await ask(socket) > 0 {
                    held.append(socket)
                } else {
                    close(socket)
                    refused = true
                }
            }
            #expect(refused, "three connections from one client were all served with a cap of two")
            #expect(held.count <= 2)
            // Once one closes, a new one is served.
            if !held.isEmpty { close(held.removeFirst()) }
            // The server learns of the close on its own time: asked again until it has.
            try await waitUntil("a new connection to be served once one closed", within: .seconds(60), interval: .milliseconds(20)) {
                (try? await raw.send("GET", "/healthz"))?.status == 200
            }
            held.forEach { close($0) }
        }
    }
}
