import Foundation
import Glibc
import Testing
import TrawlCore
import TrawlTesting

@testable import TrawlFetch

/// Real libcurl against a real loopback server that misbehaves on purpose.
@Suite("Loader over HTTP", .timeLimit(.minutes(3)))
struct LoaderHTTPTests {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer { request in
            switch request.path {
            case "/page": .html("<html><head><title>t</title></head><body>hello</body></html>")
            case "/missing": .status(404)
            case "/limited": .status(429, headers: [("Retry-After", "7")])
            case "/slow": .drip(chunks: Array(repeating: Data("x".utf8), count: 50), interval: .milliseconds(300))
            case "/endless": .endless(headers: [("Content-Type", "text/html")])
            case "/bomb": .ok(headers: [("Content-Type", "text/html"), ("Content-Encoding", "gzip")], body: Self.bomb)
            case "/gzipped": .ok(headers: [("Content-Type", "text/html"), ("Content-Encoding", "gzip")], body: Gzip.compress(Data("<p>compressed</p>".utf8)))
            case "/gzipped-big": .ok(headers: [("Content-Type", "text/html"), ("Content-Encoding", "gzip")], body: Gzip.compress(Self.bigPage))
            case "/loop": .redirect("/loop2")
            case "/loop2": .redirect("/loop")
            case "/hop": .redirect("/page", status: 301)
            case "/truncated": .truncated(headers: [("Content-Type", "text/html")], declaredLength: 100_000, body: Data(repeating: 0x41, count: 1000))
            case "/big-declared": .raw(Data("HTTP/1.1 200 OK\r\nContent-Length: 2147483648\r\nContent-Type: text/html\r\n\r\n<html>".utf8))
            case "/set-cookie": .ok(headers: [("Set-Cookie", "session=abc; Path=/")], body: Data("ok".utf8))
            case "/set-cookie-then-echo": .ok(status: 302, headers: [("Set-Cookie", "session=hop; Path=/"), ("Location", "/echo-cookie")], body: Data())
            case "/echo-cookie": .ok(body: Data((request.header("cookie") ?? "none").utf8))
            case "/hangup": .hangUp
            default: .status(404)
            }
        }
    }

    /// 256 MiB of zeros, gzip-compressed (~256 KB): far past the 32 MiB cap once inflated.
    static let bomb = Gzip.compressedZeros(count: 256 << 20)

    /// 1 MiB of markup that compresses to a few KiB.
    static let bigPage = Data(String(repeating: "<p>compressed</p>", count: (1 << 20) / 17 + 1).utf8.prefix(1 << 20))

    func fetch(_ path: String, _ configuration: LoaderConfiguration = .init()) async throws -> Payload {
        try await Loader(configuration: configuration).fetch(FetchRequest(url: server.url(path)))
    }

    @Test func readsAPage() async throws {
        let payload = try await fetch("/page")
        #expect(payload.info.status == 200)
        #expect(payload.info.contentType == "text/html")
        #expect(payload.info.charset == "utf-8")
        #expect(payload.text.contains("hello"))
    }

    /// The benchmark's server keeps connections alive: two requests on one socket get two
    /// responses; the default server closes the connection after the first.
    @Test func keptAliveServerAnswersSeveralRequestsOnOneConnection() async throws {
        let alive = try LoopbackServer(keepsAlive: true) { request in .html("<p>\(request.path)</p>") }
        defer { alive.shutdown() }
        let twoRequests = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
        let first = try await Self.exchange(port: alive.port, send: twoRequests, until: "<p>/a</p>")
        #expect(first.contains("<p>/a</p>") && !first.contains("Connection: close"))
        let both = try await Self.exchange(port: alive.port, send: twoRequests + "GET /b HTTP/1.1\r\nHost: x\r\n\r\n", until: "<p>/b</p>", pause: true)
        #expect(both.contains("<p>/a</p>") && both.contains("<p>/b</p>"))
        #expect(alive.requests.count == 3)
        #expect(alive.connectionsAccepted == 2)
        let closing = try await Self.exchange(port: server.port, send: "GET /page HTTP/1.1\r\nHost: x\r\n\r\n", until: "hello")
        #expect(closing.contains("Connection: close"))
    }

    /// Sends `request` over one new connection (the second of two requests after the first
    /// response when `pause`) and reads until `marker` arrives or the server closes. The
    /// socket's reads block (5 s at most each), so they are done on a thread of their own.
    static func exchange(port: Int, send request: String, until marker: String, pause: Bool = false) async throws -> String {
        try await offPool("exchange") { try blockingExchange(port: port, send: request, until: marker, pause: pause) }
    }

    /// ``exchange(port:send:until:pause:)``, in the calling thread.
    static func blockingExchange(port: Int, send request: String, until marker: String, pause: Bool) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        // Requests are not pipelined: the second goes once the first response is in.
        let parts = pause ? request.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }.map { $0 + "\r\n\r\n" } : [request]
        var received = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        for (index, part) in parts.enumerated() {
            _ = part.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            let wanted = index == parts.count - 1 ? marker : "</p>"
            let before = received.components(separatedBy: wanted).count
            while received.components(separatedBy: wanted).count == before {
                let n = recv(fd, &buffer, buffer.count, 0)
                guard n > 0 else { return received }
                received += String(decoding: buffer[0..<n], as: UTF8.self)
            }
        }
        return received
    }

    @Test func errorStatusIsAPayload() async throws {
        let payload = try await fetch("/missing")
        #expect(payload.info.status == 404)
        #expect(payload.text.contains("404"))
    }

    @Test func tooManyRequestsKeepsRetryAfter() async throws {
        let payload = try await fetch("/limited")
        #expect(payload.info.status == 429)
        #expect(payload.info.headers["retry-after"] == "7")
    }

    @Test func slowDripTimesOut() async throws {
        await #expect { try await fetch("/slow", .init(timeout: .seconds(1))) } throws: { error in
            (error as? FetchError)?.code == .timedOut
        }
    }

    @Test func endlessBodyHitsTheCap() async throws {
        await #expect { try await fetch("/endless", .init(maxBodySize: 1 << 20)) } throws: { error in
            guard let error = error as? FetchError else { return false }
            return error.code == .bodyTooLarge && error.url.hasSuffix("/endless")
        }
    }

    @Test func gzipBombHitsTheCapAfterDecompression() async throws {
        #expect(Self.bomb.count < 1 << 20)
        await #expect { try await fetch("/bomb") } throws: { ($0 as? FetchError)?.code == .bodyTooLarge }
    }

    @Test func declaredHugeBodyIsRefusedUpFront() async throws {
        await #expect { try await fetch("/big-declared") } throws: { ($0 as? FetchError)?.code == .bodyTooLarge }
    }

    @Test func gzipIsDecoded() async throws {
        #expect(try await fetch("/gzipped").text == "<p>compressed</p>")
    }

    /// A compressed response's `Content-Length` counts wire bytes, not the decoded body: the
    /// pieces handed on are the usual size, not cut to the compressed length.
    @Test func compressedLengthDoesNotSizeThePieces() async throws {
        var pieces: [Int] = []
        var body = Data()
        // The loader stops its transfers when released: it is kept for the whole stream.
        let loader = Loader()
        for try await event in loader.stream(FetchRequest(url: server.url("/gzipped-big"))) {
            if case .body(let piece) = event {
                pieces.append(piece.count)
                body.append(piece)
            }
        }
        withExtendedLifetime(loader) {}
        #expect(body == Self.bigPage)
        #expect(pieces.dropLast().allSatisfy { $0 >= CurlTransfer.pieceSize }, "pieces: \(pieces)")
        #expect(pieces.count == (Self.bigPage.count + CurlTransfer.pieceSize - 1) / CurlTransfer.pieceSize)
    }

    @Test func redirectLoopStops() async throws {
        await #expect { try await fetch("/loop") } throws: { ($0 as? FetchError)?.code == .tooManyRedirects }
    }

    @Test func redirectsAreFollowed() async throws {
        let payload = try await fetch("/hop")
        #expect(payload.info.url == server.url("/page"))
        #expect(payload.info.requestURL == server.url("/hop"))
        #expect(payload.text.contains("hello"))
    }

    @Test func truncatedBodyIsAnError() async throws {
        await #expect { try await fetch("/truncated") } throws: { ($0 as? FetchError)?.code == .connectionLost }
    }

    @Test func hangUpIsAnError() async throws {
        await #expect { try await fetch("/hangup") } throws: { ($0 as? FetchError)?.code == .connectionLost }
    }

    @Test func cookiesPersistWithinALoader() async throws {
        let loader = Loader()
        _ = try await loader.fetch(FetchRequest(url: server.url("/set-cookie")))
        let echoed = try await loader.fetch(FetchRequest(url: server.url("/echo-cookie")))
        #expect(echoed.text == "session=abc")
        let fresh = try await Loader().fetch(FetchRequest(url: server.url("/echo-cookie")))
        #expect(fresh.text == "none")
    }

    /// `serve`'s loader: transfers of different clients share no jar, yet a redirect keeps the
    /// cookie its own hop set.
    @Test func aLoaderThatSharesNoJarKeepsCookiesWithinOneTransfer() async throws {
        var configuration = LoaderConfiguration()
        configuration.sharesCookies = false
        let loader = Loader(configuration: configuration)
        _ = try await loader.fetch(FetchRequest(url: server.url("/set-cookie")))
        #expect(try await loader.fetch(FetchRequest(url: server.url("/echo-cookie"))).text == "none")
        #expect(try await loader.fetch(FetchRequest(url: server.url("/set-cookie-then-echo"))).text == "session=hop")
    }

    @Test func cancellationReachesTheTransfer() async throws {
        let loader = Loader()
        let task = Task { try await loader.fetch(FetchRequest(url: server.url("/slow"))) }
        // Cancelled once the server has the request: the transfer is under way.
        try await server.waitForRequests { $0.contains { $0.path == "/slow" } }
        task.cancel()
        // Uncancelled, the 15 s drip would end in a payload: `.cancelled` proves the transfer stopped.
        await #expect { try await task.value } throws: { ($0 as? FetchError)?.code == .cancelled }
    }

    @Test func manyTransfersAtOnce() async throws {
        let loader = Loader()
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<40 { group.addTask { try await loader.fetch(FetchRequest(url: server.url("/page"))).info.status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 40))
    }
}

@Suite("Loader failures and other schemes", .timeLimit(.minutes(3)))
struct LoaderSchemeTests {
    @Test func connectionRefused() async throws {
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let url = URL(string: "http://127.0.0.1:\(refusing.port)/")!
        await #expect { try await Loader().fetch(FetchRequest(url: url)) } throws: { ($0 as? FetchError)?.code == .connectionFailed }
    }

    @Test func unsupportedSchemeNamesTheURL() async throws {
        await #expect { try await Loader().fetch(FetchRequest(url: URL(string: "gopher://example.com/x")!)) } throws: { error in
            guard let error = error as? FetchError else { return false }
            return error.code == .unsupportedScheme && error.description.contains("gopher://example.com/x")
        }
    }

    @Test func fileScheme() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-\(UUID()).html")
        try Data("<p>file</p>".utf8).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let payload = try await Loader().fetch(FetchRequest(url: path))
        #expect(payload.text == "<p>file</p>")
        #expect(payload.info.contentType == "text/html")
        await #expect { try await Loader().fetch(FetchRequest(url: URL(fileURLWithPath: "/nonexistent/x.html"))) } throws: {
            ($0 as? FetchError)?.code == .fileNotFound
        }
    }

    @Test func dataScheme() async throws {
        let plain = try await Loader().fetch(FetchRequest(url: URL(string: "data:text/html,%3Cp%3Ehi%3C%2Fp%3E")!))
        #expect(plain.text == "<p>hi</p>")
        #expect(plain.info.contentType == "text/html")
        let encoded = try await Loader().fetch(FetchRequest(url: URL(string: "data:application/json;base64,eyJhIjoxfQ==")!))
        #expect(encoded.text == #"{"a":1}"#)
        #expect(encoded.info.isJSON)
    }

    @Test func secretsStayOutOfErrors() {
        let error = FetchError(.timedOut, url: "https://api.giphy.com/v1/gifs/search?api_key=SECRET&q=cats", message: "slow")
        #expect(!error.description.contains("SECRET"))
        #expect(error.description.contains("q=cats"))
    }
}
