import Foundation
import Glibc
import Synchronization
import Testing
import Trawl
import TrawlBrowser
import TrawlCore
import TrawlFetch
import TrawlTesting

extension BrowserTests {
    /// The address guard reaches the browser: under a policy, every request a page makes is fetched
    /// by the guarded loader and fulfilled into the page, and Chromium itself resolves nothing.
    ///
    /// All on loopback: an "inside" server on 127.0.0.1 that must never be reached (the policy
    /// refuses loopback) and the site on 127.0.0.2 (allowed by rule); names are mapped onto them with
    /// `connectTo`, so even a broken guard could not send a packet off the machine.
    @Suite struct AddressGuardBrowserTests {
        let inside: LoopbackServer
        let site: LoopbackServer
        let policy: AddressPolicy

        init() throws {
            try requireBrowser()
            inside = try LoopbackServer(host: "127.0.0.1", keepsAlive: true) { _ in
                .ok(
                    headers: [("Content-Type", "application/json"), ("Access-Control-Allow-Origin", "*")],
                    body: Data(#"{"items":[{"url":"https://media.test/inside.gif"}]}"#.utf8))
            }
            let insidePort = inside.port
            site = try LoopbackServer(host: "127.0.0.2", keepsAlive: true) { request in
                Self.page(request, insidePort: insidePort)
            }
            policy = AddressPolicy.denyPrivate.allowing(try AddressRange(parsing: "127.0.0.2/32"))
        }

        /// The refused server's spellings a script may use: a name mapped onto it, its address, and
        /// the decimal and hex forms of the address.
        static func refusedURLs(insidePort: Int) -> [String] {
            [
                "http://inside.test/secret", "http://127.0.0.1:\(insidePort)/secret", "http://2130706433:\(insidePort)/secret",
                "http://0x7f000001:\(insidePort)/secret", "http://0x7f.1:\(insidePort)/secret",
            ]
        }

        static func page(_ request: TestRequest, insidePort: Int) -> TestResponse {
            let refused = refusedURLs(insidePort: insidePort).map { "'\($0)'" }.joined(separator: ", ")
            switch request.path {
            // Each refused fetch writes what became of it; the allowed API brings the page's GIF.
            case "/gallery":
                return .html(
                    """
                    <html><head><title>Gallery</title></head><body><div id="grid"></div><ol id="log"></ol><script>
                    const note = t => { const li = document.createElement('li'); li.textContent = t; log.append(li); };
                    Promise.all([\(refused)].map(u => fetch(u).then(r => r.text()).then(t => note('read ' + u + ' ' + t), e => note('failed ' + u))))
                      .then(() => fetch('/bounce').then(r => r.text()).then(t => note('read bounce ' + t), e => note('failed bounce')))
                      .then(() => fetch('/api/items', {method: 'POST', headers: {'X-Trawl-Test': 'kept'}, body: 'q=cats'}))
                      .then(r => r.json()).then(d => { grid.innerHTML = d.items.map(i => '<img src="' + i.url + '">').join(''); });
                    </script></body></html>
                    """)
            case "/api/items":
                let echoed = request.method == "POST" && request.header("X-Trawl-Test") == "kept" && request.header("Content-Length") == "6"
                return .ok(
                    headers: [("Content-Type", "application/json"), ("X-Echoed", echoed ? "yes" : "no"), ("Connection", "keep-alive")],
                    body: Data(#"{"items":[{"url":"https://media.test/allowed.gif","width":320,"height":240}]}"#.utf8))
            case "/bounce": return .redirect("http://127.0.0.1:\(insidePort)/secret")
            case "/framed":
                return .html(
                    """
                    <html><body><iframe id="f" src="http://inside.test/frame"></iframe>
                    <div id="grid"><img src="https://media.test/framed.gif" width="320" height="240"></div></body></html>
                    """)
            case "/to-inside": return .redirect("http://inside.test/secret")
            case "/script-redirect": return .html("<html><body><script>location.href = 'http://2130706433:\(insidePort)/secret';</script></body></html>")
            case "/side-channels":
                return .html(
                    """
                    <html><body><ol id="log"></ol><script>
                    const note = t => { const li = document.createElement('li'); li.textContent = t; log.append(li); };
                    try { const ws = new WebSocket('ws://127.0.0.1:\(insidePort)/ws'); ws.onerror = () => note('socket failed'); } catch (e) { note('socket threw'); }
                    const worker = new Worker(URL.createObjectURL(new Blob(["fetch('http://127.0.0.1:\(insidePort)/worker').then(() => postMessage('read'), () => postMessage('failed'))"])));
                    worker.onmessage = e => note('worker ' + e.data);
                    const peer = new RTCPeerConnection({iceServers: [{urls: 'stun:127.0.0.1:' + new URLSearchParams(location.search).get('stun')}]});
                    peer.createDataChannel('d');
                    peer.createOffer().then(offer => peer.setLocalDescription(offer));
                    </script><link rel="prefetch" href="http://127.0.0.1:\(insidePort)/prefetch"><link rel="preconnect" href="http://inside.test"></body></html>
                    """)
            case "/capped":
                return .html(
                    """
                    <html><body><ol id="log"></ol><script>
                    const note = t => { const li = document.createElement('li'); li.textContent = t; log.append(li); };
                    fetch('/endless').then(r => r.text()).then(t => note('read endless ' + t.length), e => note('failed endless'))
                      .then(() => fetch('/small')).then(r => r.text()).then(t => note('read small ' + t));
                    </script></body></html>
                    """)
            case "/endless": return .endless(headers: [("Content-Type", "application/octet-stream")])
            case "/small": return .ok(headers: [("Content-Type", "text/plain")], body: Data("tiny".utf8))
            case "/streaming": return .html("<html><body><script>fetch('http://stream.test/forever').then(r => r.text());</script><p>Hello</p></body></html>")
            case "/": return .html("<html><body><p>Hello</p></body></html>")
            default: return .status(404)
            }
        }

        var connectTo: [String] { ["allowed.test::127.0.0.2:\(site.port)", "inside.test::127.0.0.1:\(inside.port)"] }

        /// A pool whose pages are fetched through a loader under `policy`, with the browser offline.
        func guardedPool(
            policy: AddressPolicy? = nil, maxBodySize: Int = 32 << 20, timeout: Duration = .seconds(5), connectTo more: [String] = []
        ) -> BrowserPool {
            var loader = LoaderConfiguration(timeout: timeout, maxBodySize: maxBodySize, connectTo: connectTo + more, addressPolicy: policy ?? self.policy)
            loader.followsRedirects = false
            var browser = BrowserConfiguration(quietWindow: .milliseconds(300), pageBudget: .seconds(8), commandTimeout: .seconds(5))
            browser.offline = true
            return BrowserPool(configuration: browser, interceptors: [.fetching(through: Loader(configuration: loader))])
        }

        func close() {
            inside.shutdown()
            site.shutdown()
        }

        @Test func scriptFetchesOfRefusedAddressesFailAndNeverReachTheirServer() async throws {
            defer { close() }
            let pool = guardedPool()
            let page: RenderedPage
            do {
                page = try await pool.render(FetchRequest(url: URL(string: "http://allowed.test/gallery")!))
            } catch {
                await pool.shutdown()
                throw error
            }
            await pool.shutdown()
            let html = String(decoding: page.html, as: UTF8.self)
            for url in Self.refusedURLs(insidePort: inside.port) {
                #expect(html.contains("failed \(url)"), "\(url) was not refused: \(html)")
            }
            #expect(html.contains("failed bounce"), "a redirect to a refused address is refused too")
            #expect(!html.contains("inside.gif"))
            #expect(inside.connectionsAccepted == 0, "the refused server saw \(inside.requests.map(\.path))")
            // The allowed request went through with its method, headers and body (its length); its response kept
            // its status and headers, minus the hop-by-hop ones.
            #expect(html.contains("https://media.test/allowed.gif"))
            let api = try #require(page.responses.first { $0.info.url.path == "/api/items" })
            #expect(api.info.status == 200)
            #expect(api.info.headers["X-Echoed"] == "yes")
            #expect(site.requests.contains { $0.path == "/bounce" })

            // The control: the same page through a loader that allows everything reaches the server
            // by every one of those spellings, and through the redirect.
            let open = guardedPool(policy: .allowAll)
            let unguarded: RenderedPage
            do {
                unguarded = try await open.render(FetchRequest(url: URL(string: "http://allowed.test/gallery")!))
            } catch {
                await open.shutdown()
                throw error
            }
            await open.shutdown()
            let openHTML = String(decoding: unguarded.html, as: UTF8.self)
            for url in Self.refusedURLs(insidePort: inside.port) { #expect(openHTML.contains("read \(url)"), "\(openHTML)") }
            #expect(openHTML.contains("read bounce"))
            #expect(inside.requests.count == Self.refusedURLs(insidePort: inside.port).count + 1)
        }

        @Test func aRefusedIframeIsNotLoadedAndThePageStillGivesItsMedia() async throws {
            defer { close() }
            var configuration = Self.configuration(connectTo: connectTo, policy: policy)
            configuration.browser = .always
            let media = try await Self.resolve("http://allowed.test/framed", configuration)
            #expect(media.map(\.url) == ["https://media.test/framed.gif"])
            #expect(inside.connectionsAccepted == 0)
            #expect(site.requests.contains { $0.path == "/framed" })
        }

        @Test(arguments: ["/to-inside", "/script-redirect"])
        func aPageSentToARefusedAddressFailsNamingTheHost(path: String) async throws {
            defer { close() }
            var configuration = Self.configuration(connectTo: connectTo, policy: policy)
            configuration.browser = .always
            do {
                let media = try await Self.resolve("http://allowed.test\(path)", configuration)
                Issue.record("resolved \(media.map(\.url)); expected a refusal")
            } catch let error as FetchError {
                #expect(error.code == .refusedAddress, "\(error)")
                if path == "/to-inside" {
                    #expect(error.message.contains("'inside.test'"), "\(error)")
                    #expect(!error.message.contains("127.0.0.1"), "the address a name reached stays private: \(error)")
                } else {
                    // The browser's URL parser writes `2130706433` as `127.0.0.1` before asking for it.
                    #expect(error.message.contains("'127.0.0.1'"), "\(error)")
                }
            }
            #expect(inside.connectionsAccepted == 0)
            #expect(site.requests.contains { $0.path == path })
        }

        @Test func requestsTheInterceptorCannotSeeGoNowhere() async throws {
            defer { close() }
            // A STUN server's port on loopback: WebRTC would send it UDP without asking the resolver.
            let stun = try UDPWitness()
            defer { stun.close() }
            let pool = guardedPool()
            let page: RenderedPage
            do {
                page = try await pool.render(FetchRequest(url: URL(string: "http://allowed.test/side-channels?stun=\(stun.port)")!))
            } catch {
                await pool.shutdown()
                throw error
            }
            await pool.shutdown()
            let html = String(decoding: page.html, as: UTF8.self)
            #expect(html.contains("socket failed") || html.contains("socket threw"), "\(html)")
            #expect(html.contains("worker failed"), "\(html)")
            #expect(inside.connectionsAccepted == 0, "the refused server saw \(inside.requests.map(\.path))")
            #expect(stun.datagramsWaiting == 0, "WebRTC sent UDP to loopback")
        }

        @Test func aBodyOverTheLoadersCapFailsThatRequestOnly() async throws {
            defer { close() }
            let pool = guardedPool(maxBodySize: 1 << 20)
            let page: RenderedPage
            do {
                page = try await pool.render(FetchRequest(url: URL(string: "http://allowed.test/capped")!))
            } catch {
                await pool.shutdown()
                throw error
            }
            await pool.shutdown()
            let html = String(decoding: page.html, as: UTF8.self)
            #expect(html.contains("failed endless"), "\(html)")
            #expect(html.contains("read small tiny"), "\(html)")
        }

        /// A request still being fetched when the page is done is cancelled with it: its connection
        /// closes then, not at the loader's time limit or its low-speed limit (15 s).
        @Test func theGuardedFetchesEndWithThePage() async throws {
            defer { close() }
            let stream = try StallingServer()
            defer { stream.shutdown() }
            let pool = guardedPool(timeout: .seconds(60), connectTo: ["stream.test::127.0.0.2:\(stream.port)"])
            do {
                // The page settles with the stream in flight (it stalled past `stalledRequestAge`).
                _ = try await pool.render(FetchRequest(url: URL(string: "http://allowed.test/streaming")!))
            } catch {
                await pool.shutdown()
                throw error
            }
            #expect(stream.accepted == 1)
            // The pool and its browser stay up: only the page's end can have closed the transfer.
            try await stream.connections.wait(for: "the page's end to close the transfer (it outlived its page)", within: .seconds(60)) { $0.closed > 0 }
            #expect(stream.closed == 1, "the transfer outlived its page")
            await pool.shutdown()
        }

        /// `--record` under the guard: the browser's responses, fetched by the guarded loader, are in
        /// the HAR as they are without the guard.
        @Test func aGuardedRunRecordsWhatTheBrowserReceived() async throws {
            defer { close() }
            let recorder = HARRecorder()
            var configuration = Self.configuration(connectTo: connectTo, policy: policy)
            configuration.browser = .always
            configuration.recorder = recorder
            let media = try await Self.resolve("http://allowed.test/gallery", configuration)
            #expect(media.map(\.url) == ["https://media.test/allowed.gif"])
            let entries = await recorder.recorded
            let api = try #require(entries.first { $0.request.url == "http://allowed.test/api/items" })
            #expect(api.request.method == "POST")
            #expect(api.origin == .browserXHR)
            #expect(api.response.content.text?.contains("allowed.gif") == true)
            #expect(entries.contains { $0.request.url == "http://allowed.test/bounce" && $0.response.status == 302 })
            #expect(!entries.contains { $0.request.url.contains("secret") }, "refused requests have no response to record")
            #expect(inside.connectionsAccepted == 0)
        }

        @Test func theAllowedSiteRendersAsWithoutTheGuard() async throws {
            defer { close() }
            var configuration = Self.configuration(connectTo: connectTo, policy: policy)
            configuration.browser = .always
            let media = try await Self.resolve("http://allowed.test/gallery", configuration)
            #expect(media.map(\.url) == ["https://media.test/allowed.gif"])
            #expect(inside.connectionsAccepted == 0)
        }

        static func configuration(connectTo: [String], policy: AddressPolicy) -> TrawlConfiguration {
            var configuration = TrawlConfiguration(loader: LoaderConfiguration(timeout: .seconds(5), connectTo: connectTo, addressPolicy: policy))
            configuration.browserConfiguration = BrowserConfiguration(quietWindow: .milliseconds(300), pageBudget: .seconds(8), commandTimeout: .seconds(5))
            return configuration
        }

        static func resolve(_ input: String, _ configuration: TrawlConfiguration) async throws -> [Media] {
            let environment = Environment(configuration)
            let provider = SearchProvider(environment: environment)
            var media: [Media] = []
            do {
                for try await set in provider.results(for: Request(input)) { media += set.media }
            } catch {
                await (environment.renderer as? AdaptiveRenderer)?.pool.shutdown()
                throw error
            }
            await (environment.renderer as? AdaptiveRenderer)?.pool.shutdown()
            return media
        }
    }
}

/// A UDP socket on 127.0.0.1 that only counts what arrives (a STUN server nobody should reach).
final class UDPWitness: Sendable {
    let fd: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else {
            let code = errno
            Glibc.close(descriptor)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        fd = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Datagrams received so far (read without waiting).
    var datagramsWaiting: Int {
        var count = 0
        var buffer = [UInt8](repeating: 0, count: 2048)
        while recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT)) >= 0 { count += 1 }
        return count
    }

    func close() { Glibc.close(fd) }
}

/// A server on 127.0.0.2 that answers each request with the head of a chunked response and one
/// chunk, then sends nothing more and waits for the client to leave, counting who did.
final class StallingServer: Sendable {
    let port: Int
    private let listener: Int32
    /// Connections accepted and closed by their client, for a test to await.
    let connections = Watched<(accepted: Int, closed: Int)>((0, 0))

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.2")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 && listen(descriptor, 8) == 0
            }
        }
        guard listening else {
            let code = errno
            Glibc.close(descriptor)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    var accepted: Int { connections.value.accepted }
    var closed: Int { connections.value.closed }

    /// Wakes the accept loop, which closes the listener itself.
    func shutdown() { Glibc.shutdown(listener, Int32(SHUT_RDWR)) }

    private func acceptLoop() {
        defer { Glibc.close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            connections.update { $0.accepted += 1 }
            Thread { [self] in stall(client) }.start()
        }
    }

    private func stall(_ client: Int32) {
        defer { Glibc.close(client) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var request: [UInt8] = []
        while !request.ends(with: Array("\r\n\r\n".utf8)) {
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            request += buffer[..<count]
        }
        let head = Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n".utf8)
        guard send(client, head, head.count, Int32(MSG_NOSIGNAL)) == head.count else { return }
        // Nothing more is sent: the connection ends when the client closes it.
        while recv(client, &buffer, buffer.count, 0) > 0 {}
        connections.update { $0.closed += 1 }
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
