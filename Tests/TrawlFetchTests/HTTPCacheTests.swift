import Foundation
import Synchronization
import Testing
import TrawlCore
import TrawlTesting

@testable import TrawlFetch

/// The disk cache over real libcurl and a loopback server.
@Suite("HTTP cache", .timeLimit(.minutes(3)))
struct HTTPCacheTests {
    func transport(_ server: LoopbackServer, policy: CachePolicy = .useProtocolPolicy, directory: URL? = nil) throws -> (CachingTransport, URL) {
        let folder = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("trawl-cache-\(UUID().uuidString)")
        return (CachingTransport(base: Loader(), cache: try HTTPCache(directory: folder), policy: policy), folder)
    }

    func fetch(_ transport: CachingTransport, _ url: URL, headers: HTTPHeaders = [:]) async throws -> Payload {
        for try await payload in transport.payloads(for: FetchRequest(url: url, headers: headers), context: nil) { return payload }
        throw CancellationError()
    }

    @Test("An entry reads back byte for byte, an empty body too; a cut or damaged file is a miss")
    func entryFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try HTTPCache(directory: folder)
        let body = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let entry = CacheEntry(
            url: "https://a.example/big", finalURL: "https://a.example/big", status: 200,
            headers: [.init(name: "Content-Type", value: "text/html")], storedAt: 0, varyValues: [:], guardedBy: nil)
        try cache.store(entry, body: body)
        #expect(cache.entry(for: entry.url)?.1 == body)
        #expect(cache.entry(for: "https://a.example/other") == nil)

        var empty = entry
        empty.url = "https://a.example/empty"
        try cache.store(empty, body: Data())
        #expect(cache.entry(for: empty.url)?.1 == Data())

        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".entry") }
        #expect(files.count == 2)
        for file in files {
            let path = folder.appendingPathComponent(file)
            let whole = try Data(contentsOf: path)
            try whole.prefix(20).write(to: path)
        }
        #expect(cache.entry(for: entry.url) == nil)
        #expect(cache.entry(for: empty.url) == nil)
    }

    @Test("A stale entry with an ETag is revalidated: the 304 serves the cached body")
    func revalidation() async throws {
        let server = try LoopbackServer { request in
            if request.header("if-none-match") == "\"v1\"" { return .ok(status: 304, headers: [("ETag", "\"v1\"")], body: Data()) }
            return .ok(headers: [("Content-Type", "text/html"), ("ETag", "\"v1\""), ("Cache-Control", "no-cache")], body: Data("<p>the body</p>".utf8))
        }
        defer { server.shutdown() }
        let (cache, _) = try transport(server)
        let first = try await fetch(cache, server.url("/page"))
        let second = try await fetch(cache, server.url("/page"))
        #expect(first.info.headers[CachingTransport.statusHeader] == "miss")
        #expect(second.info.headers[CachingTransport.statusHeader] == "revalidated")
        #expect(second.info.status == 200)
        #expect(second.text == "<p>the body</p>")
        #expect(server.requests.map { $0.header("if-none-match") } == [nil, "\"v1\""])
    }

    @Test("Last-Modified revalidates with If-Modified-Since")
    func lastModified() async throws {
        let stamp = "Tue, 03 Nov 2026 10:00:00 GMT"
        let server = try LoopbackServer { request in
            if request.header("if-modified-since") == stamp { return .ok(status: 304, body: Data()) }
            return .ok(headers: [("Last-Modified", stamp), ("Cache-Control", "max-age=0")], body: Data("dated".utf8))
        }
        defer { server.shutdown() }
        let (cache, _) = try transport(server)
        _ = try await fetch(cache, server.url("/d"))
        let second = try await fetch(cache, server.url("/d"))
        #expect(second.info.headers[CachingTransport.statusHeader] == "revalidated")
        #expect(second.text == "dated")
    }

    @Test("A fresh entry (max-age) is served without asking; no-store is never kept")
    func freshness() async throws {
        let server = try LoopbackServer { request in
            request.path == "/fresh"
                ? .ok(headers: [("Cache-Control", "max-age=600")], body: Data("fresh".utf8))
                : .ok(headers: [("Cache-Control", "no-store")], body: Data("secret".utf8))
        }
        defer { server.shutdown() }
        let (cache, _) = try transport(server)
        _ = try await fetch(cache, server.url("/fresh"))
        let hit = try await fetch(cache, server.url("/fresh"))
        #expect(hit.info.headers[CachingTransport.statusHeader] == "hit")
        _ = try await fetch(cache, server.url("/private"))
        let again = try await fetch(cache, server.url("/private"))
        #expect(again.info.headers[CachingTransport.statusHeader] == "miss")
        #expect(server.requests.map(\.path) == ["/fresh", "/private", "/private"])
    }

    @Test("Vary: a request with other values of the named headers is not served the entry")
    func vary() async throws {
        let server = try LoopbackServer { request in
            .ok(headers: [("Cache-Control", "max-age=600"), ("Vary", "Accept-Language")], body: Data((request.header("accept-language") ?? "none").utf8))
        }
        defer { server.shutdown() }
        let (cache, _) = try transport(server)
        _ = try await fetch(cache, server.url("/v"), headers: ["Accept-Language": "en"])
        let same = try await fetch(cache, server.url("/v"), headers: ["Accept-Language": "en"])
        let other = try await fetch(cache, server.url("/v"), headers: ["Accept-Language": "fr"])
        #expect(same.info.headers[CachingTransport.statusHeader] == "hit")
        #expect(other.info.headers[CachingTransport.statusHeader] == "miss")
        #expect(other.text == "fr")
    }

    @Test("Request policies: return-cache-else-load serves stale entries, reload always asks, cache-only never does")
    func policies() async throws {
        let server = try LoopbackServer { _ in .ok(headers: [("Cache-Control", "max-age=0")], body: Data("x".utf8)) }
        defer { server.shutdown() }
        let (load, folder) = try transport(server)
        _ = try await fetch(load, server.url("/p"))
        let (elseLoad, _) = try transport(server, policy: .returnCacheElseLoad, directory: folder)
        #expect(try await fetch(elseLoad, server.url("/p")).info.headers[CachingTransport.statusHeader] == "hit")
        let (reload, _) = try transport(server, policy: .reloadIgnoringCache, directory: folder)
        #expect(try await fetch(reload, server.url("/p")).info.headers[CachingTransport.statusHeader] == "miss")
        let (only, _) = try transport(server, policy: .cacheOnly, directory: folder)
        #expect(try await fetch(only, server.url("/p")).text == "x")
        await #expect(throws: FetchError.self) { try await fetch(only, server.url("/never-fetched")) }
        #expect(server.requests.count == 2)
    }
}
