import Foundation
import Testing
import Trawl
import TrawlCore
import TrawlFetch
import TrawlTesting

/// `--probe` end to end: a page's media checked with one ranged GET each, against a loopback
/// server that serves real media bytes (honouring ranges or not), a 404, and a page where a GIF
/// was promised.
@Suite("Probe", .timeLimit(.minutes(2)))
struct ProbeTests {
    static let animated = MediaBytes.gif(width: 480, height: 270, frames: 12, delay: 5)
    static let still = MediaBytes.gif(width: 300, height: 200, frames: 1, loops: nil)
    /// A 2 MB clip: a probe must not read it all.
    static let big = MediaBytes.mp4(width: 640, height: 360, frames: 75, seconds: 3) + [UInt8](repeating: 0, count: 2 << 20)

    static func page(_ media: [String]) -> TestResponse {
        .html(
            "<html><head><title>media</title></head><body>"
                + media.map { url in
                    url.hasSuffix(".mp4") ? "<video src=\"\(url)\" width=\"640\" height=\"360\"></video>" : "<img src=\"\(url)\" width=\"400\" height=\"300\">"
                }.joined() + "</body></html>")
    }

    /// A server for `page.test` (the page) and `media.test` (the files), ranges honoured on
    /// every path but `/ignores-range/…`.
    static func server() throws -> LoopbackServer {
        try LoopbackServer { request in
            let files: [String: [UInt8]] = ["/cat.gif": animated, "/still.gif": still, "/clip.mp4": big, "/ignores-range/clip.mp4": big]
            if request.path == "/page" {
                return page([
                    "http://media.test/cat.gif", "http://media.test/still.gif", "http://media.test/gone.gif",
                    "http://media.test/not-media.gif", "http://media.test/ignores-range/clip.mp4",
                ])
            }
            if request.path == "/not-media.gif" { return .html("<html><body>Sign in to see this GIF</body></html>") }
            guard let bytes = files[request.path] else { return .status(404) }
            let type = request.path.hasSuffix(".mp4") ? "video/mp4" : "image/gif"
            if !request.path.hasPrefix("/ignores-range"), let range = request.header("range"), range.hasPrefix("bytes=0-"),
                let last = Int(range.dropFirst("bytes=0-".count))
            {
                let end = min(last, bytes.count - 1)
                return .ok(
                    status: 206, headers: [("Content-Type", type), ("Content-Range", "bytes 0-\(end)/\(bytes.count)")],
                    body: Data(bytes[0...end]))
            }
            return .ok(headers: [("Content-Type", type)], body: Data(bytes))
        }
    }

    static func resolve(_ server: LoopbackServer, _ options: MediaProber.Options) async throws -> [Media] {
        var configuration = TrawlConfiguration(loader: LoaderConfiguration(timeout: .seconds(10), connectTo: ["::\(server.host):\(server.port)"]))
        configuration.probe = options
        let provider = SearchProvider(configuration)
        var media: [Media] = []
        for try await set in provider.results(for: Request("http://page.test/page")) { media += set.media }
        return media
    }

    @Test func eachMediaIsCheckedAndTheDeadAreDropped() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let media = try await Self.resolve(server, MediaProber.Options())
        let byURL = Dictionary(media.map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })

        let cat = try #require(byURL["http://media.test/cat.gif"]?.probe, "\(media.map(\.url))")
        #expect(cat.status == 206 && cat.format == "gif" && cat.animated == true && cat.frames == 12)
        #expect(cat.width == 480 && cat.height == 270 && cat.durationSeconds == 0.6)
        #expect(cat.bytes == Self.animated.count)
        #expect(!cat.dead)

        // A claimed GIF that is a still: relabelled.
        let still = try #require(byURL["http://media.test/still.gif"])
        #expect(still.probe?.animated == false)
        #expect(still.kind == .still)

        // A server that ignores the range: read up to the cap, the size from Content-Length.
        let clip = try #require(byURL["http://media.test/ignores-range/clip.mp4"]?.probe)
        #expect(clip.status == 200 && clip.format == "mp4" && clip.animated == true && clip.durationSeconds == 3)
        #expect(clip.bytes == Self.big.count)

        // Gone, and a page where a GIF was promised: dropped.
        #expect(byURL["http://media.test/gone.gif"] == nil)
        #expect(byURL["http://media.test/not-media.gif"] == nil)

        // One ranged GET per media.
        let probes = server.requests.filter { $0.path != "/page" }
        #expect(probes.count == 5, "\(probes.map(\.target))")
        #expect(probes.allSatisfy { $0.header("range") == "bytes=0-65535" })
    }

    @Test func keepDeadKeepsThemMarked() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        var options = MediaProber.Options()
        options.keepDead = true
        let media = try await Self.resolve(server, options)
        let gone = try #require(media.first { $0.url == "http://media.test/gone.gif" }?.probe)
        #expect(gone.dead && gone.status == 404)
        let page = try #require(media.first { $0.url == "http://media.test/not-media.gif" }?.probe)
        #expect(page.dead && page.format == "unknown" && page.contentType?.hasPrefix("text/html") == true)
    }

    /// A search session with `probe` checks what it shows; the same provider without it does not.
    @Test func aSessionWithProbeChecksItsResults() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let provider = SearchProvider(
            TrawlConfiguration(loader: LoaderConfiguration(timeout: .seconds(10), connectTo: ["::\(server.host):\(server.port)"])))
        func settled(_ options: SearchSession.Options) async throws -> [Media] {
            let session = SearchSession(provider: provider, options: options)
            let events = session.events()
            await session.searchNow("http://page.test/page")
            for await state in events {
                if case .results(let results) = state, !results.isLoading { return results.media }
                if case .failed(let failure) = state { throw failure.error }
            }
            return []
        }
        let plain = try await settled(SearchSession.Options(debounce: .zero))
        #expect(plain.count == 5)
        #expect(plain.allSatisfy { $0.probe == nil })

        let probed = try await settled(SearchSession.Options(debounce: .zero, probe: MediaProber.Options()))
        #expect(Set(probed.map(\.url)) == ["http://media.test/cat.gif", "http://media.test/still.gif", "http://media.test/ignores-range/clip.mp4"])
        #expect(probed.first { $0.url == "http://media.test/cat.gif" }?.probe?.frames == 12)
        #expect(probed.first { $0.url == "http://media.test/still.gif" }?.kind == .still)
    }

    /// Servers that misbehave: a type that lies either way, bytes that trickle in, bytes that
    /// never end, an empty answer.
    @Test func misbehavingServers() async throws {
        let gif = Self.animated
        let signIn = "\n<!DOCTYPE html><html><body>Sign in to see this GIF</body></html>"
        let server = try LoopbackServer { request in
            switch request.path {
            case "/page":
                return Self.page([
                    "http://media.test/gif-labelled-html.gif", "http://media.test/html-labelled-gif.gif",
                    "http://media.test/trickle.gif", "http://media.test/endless.gif", "http://media.test/empty.gif",
                ])
            case "/gif-labelled-html.gif": return .ok(headers: [("Content-Type", "text/html")], body: Data(gif))
            case "/html-labelled-gif.gif": return .ok(headers: [("Content-Type", "image/gif")], body: Data(signIn.utf8))
            case "/trickle.gif":
                // 97 bytes at a time, no length, the range ignored.
                let chunks = stride(from: 0, to: gif.count, by: 97).map { Data(gif[$0..<min($0 + 97, gif.count)]) }
                return .drip(headers: [("Content-Type", "image/gif")], chunks: chunks, interval: .milliseconds(2))
            case "/endless.gif": return .endless(headers: [("Content-Type", "image/gif")])
            case "/empty.gif": return .ok(headers: [("Content-Type", "image/gif")], body: Data())
            // Markup, and an image: no reader knows it, but it is not a page either.
            case "/icon.svg":
                return .ok(
                    headers: [("Content-Type", "application/octet-stream")],
                    body: Data("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8))
            default: return .status(404)
            }
        }
        defer { server.shutdown() }
        var options = MediaProber.Options()
        options.keepDead = true
        let media = try await Self.resolve(server, options)
        func probe(_ name: String) throws -> MediaProbe {
            try #require(media.first { $0.url == "http://media.test/\(name)" }?.probe, "\(name): \(media.map(\.url))")
        }
        // The bytes say what a file is, not its type.
        let labelledHTML = try probe("gif-labelled-html.gif")
        #expect(!labelledHTML.dead && labelledHTML.format == "gif" && labelledHTML.frames == 12)
        let labelledGIF = try probe("html-labelled-gif.gif")
        #expect(labelledGIF.dead && labelledGIF.format == "unknown" && labelledGIF.contentType == "image/gif")
        // Trickled in: all of it read, the facts whole.
        let trickle = try probe("trickle.gif")
        #expect(trickle.status == 200 && trickle.format == "gif" && trickle.frames == 12 && trickle.durationSeconds == 0.6)
        #expect(trickle.bytes == gif.count, "no length: what was read, all of it")
        // Never ending: read up to the cap, then let go; nothing known of its size, not dead.
        let endless = try probe("endless.gif")
        #expect(endless.status == 200 && endless.format == "unknown" && endless.bytes == nil && !endless.dead)
        #expect(try probe("empty.gif").dead, "an empty answer is not media")
        // An SVG (no page links one as a GIF's: probed by its URL).
        let prober = MediaProber(
            transport: Loader(
                configuration: LoaderConfiguration(
                    timeout: .seconds(10), connectTo: ["::\(server.host):\(server.port)"])))
        let svg = await prober.probe("http://media.test/icon.svg", context: nil)
        #expect(svg.status == 200 && !svg.dead && svg.format == "unknown")
    }

    /// A page's probes go out together and over the connections the loader keeps: a second
    /// resolve of the same page reuses connections the first opened (a probe costs a round
    /// trip on a connection already open, not a new handshake each). Which ones the pool still
    /// holds when the requests start varies, so the check is that not every request needed a
    /// connection of its own.
    @Test func probesReuseConnections() async throws {
        let gif = Self.animated
        let server = try LoopbackServer(keepsAlive: true) { request in
            if request.path == "/page" { return Self.page((0..<6).map { "http://media.test/\($0).gif" }) }
            return .ok(headers: [("Content-Type", "image/gif")], body: Data(gif))
        }
        defer { server.shutdown() }
        var configuration = TrawlConfiguration(loader: LoaderConfiguration(timeout: .seconds(10), connectTo: ["::\(server.host):\(server.port)"]))
        configuration.probe = MediaProber.Options()
        let provider = SearchProvider(configuration)
        func resolve() async throws -> [Media] {
            var media: [Media] = []
            for try await set in provider.results(for: Request("http://page.test/page")) { media += set.media }
            return media
        }
        let first = try await resolve()
        #expect(first.count == 6 && first.allSatisfy { $0.probe?.frames == 12 })
        let opened = server.connectionsAccepted
        #expect(opened <= 7, "the page's connection and at most one per probe in flight")
        let second = try await resolve()
        #expect(second.count == 6 && second.allSatisfy { $0.probe?.frames == 12 })
        #expect(server.connectionsAccepted - opened < 7, "\(server.connectionsAccepted) connections after the second resolve, \(opened) after the first")
        #expect(server.requests.count == 14)
    }

    @Test func aServedRangeOfExactlyTheCapKeepsItsConnection() async throws {
        let server = try LoopbackServer(keepsAlive: true) { request in
            let range = request.header("range") ?? ""
            guard range == "bytes=0-65535" else { return .status(416) }
            return .ok(
                status: 206, headers: [("Content-Type", "video/mp4"), ("Content-Range", "bytes 0-65535/\(Self.big.count)")],
                body: Data(Self.big[0..<65536]))
        }
        defer { server.shutdown() }
        let loader = Loader(configuration: LoaderConfiguration(timeout: .seconds(10), connectTo: ["::\(server.host):\(server.port)"]))
        for _ in 0..<3 {
            var request = FetchRequest(url: URL(string: "http://media.test/clip.mp4")!)
            request.headers.replace(name: "Range", value: "bytes=0-65535")
            request.maxBodyBytes = 65536
            let payload = try await loader.fetch(request)
            #expect(payload.info.status == 206 && payload.body.count == 65536)
        }
        #expect(server.connectionsAccepted == 1, "a body that ends at the cap is read to its end, so its connection is reused")
    }

    @Test func aProbeReadsAtMostItsCap() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let loader = Loader(configuration: LoaderConfiguration(timeout: .seconds(10), connectTo: ["::\(server.host):\(server.port)"]))
        var request = FetchRequest(url: URL(string: "http://media.test/ignores-range/clip.mp4")!)
        request.maxBodyBytes = 65536
        let payload = try await loader.fetch(request)
        #expect(payload.body.count == 65536)
        #expect(payload.info.status == 200)
    }
}
