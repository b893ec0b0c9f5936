import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TrawlCore
import TrawlFetch
import TrawlTesting

@testable import TrawlServer

/// What `docs/security.md` promises, checked against the real server on a loopback socket with
/// requests written byte for byte.
@Suite("Security", .timeLimit(.minutes(3)))
struct SecurityTests {
    static let token = "s3cret-token"
    static let page = "/v1/resolve?q=\(encoded(giphyCatPage))"

    /// Each protected route, as a method and a path (with its query).
    static let protectedRoutes: [(String, String)] = [
        ("GET", page),
        ("POST", "/v1/batches"),
        ("POST", "/v1/sessions"),
        ("GET", "/v1/sessions/0123456789abcdef0123456789abcdef"),
        ("DELETE", "/v1/batches/0123456789abcdef"),
        ("GET", "/metrics"),
    ]

    /// Every other spelling of `target` a router or a proxy might read as the same path.
    static func spellings(of target: String) -> [String] {
        let (path, query) = target.firstIndex(of: "?").map { (String(target[..<$0]), String(target[$0...])) } ?? (target, "")
        var spellings = [
            "/" + path,  // //v1/resolve
            path + "/",  // /v1/resolve/
            path.replacingOccurrences(of: "/", with: "//"),  // //v1//resolve
            "/." + path,  // /./v1/resolve
            path.uppercased(),  // /V1/RESOLVE
            path + ";a=b",  // /v1/resolve;a=b
            "/%2F" + path.dropFirst(),  // /%2Fv1/resolve
            "/x/.." + path,  // /x/../v1/resolve
        ]
        if path.hasPrefix("/v1/") {
            spellings.append("/v1/../v1/" + path.dropFirst(4))
            spellings.append("/v1%2F" + path.dropFirst(4))
        }
        return spellings.map { $0 + query }
    }

    @Test func everySpellingOfAProtectedRouteIsRefusedWithoutTheToken() async throws {
        let server = try ServerFixture.replaying { $0.limits.token = Self.token }
        try await ServerFixture.application(server).test(.live) { client in
            let raw = RawHTTP(port: try #require(client.port))
            for (method, target) in Self.protectedRoutes {
                let canonical = try await raw.send(method, target)
                #expect(canonical.status == 401, "\(method) \(target): \(canonical.status) \(canonical.body)")
                for spelling in Self.spellings(of: target) {
                    let answer = try await raw.send(method, spelling)
                    #expect([401, 404].contains(answer.status), "\(method) \(spelling) answered \(answer.status) without a token: \(answer.body)")
                }
            }
            // With the token, the route answers; another spelling of it does not.
            let auth = [("Authorization", "Bearer \(Self.token)")]
            #expect(try await raw.send("GET", Self.page, headers: auth).status == 200)
            #expect(try await raw.send("GET", "/metrics", headers: auth).status == 200)
            let doubled = try await raw.send("GET", "/" + Self.page, headers: auth)
            #expect(doubled.status == 404)
            #expect(doubled.errorCode == "not-found")
            #expect(doubled.body.contains("did you mean '/v1/resolve'"), "\(doubled.body)")
            #expect(try await raw.send("GET", "/metrics/", headers: auth).status == 404)
            // The open routes stay open.
            #expect(try await raw.send("GET", "/healthz").status == 200)
            #expect(try await raw.send("GET", "/").status == 200)
        }
    }

    @Test func refusedTokensCountAgainstTheRateLimit() async throws {
        let server = try ServerFixture.replaying {
            $0.limits.token = Self.token
            // One request per 100 s after the burst: however slow the machine, the fourth is refused.
            $0.limits.rate = 0.01
            $0.limits.burst = 3
        }
        try await ServerFixture.application(server).test(.live) { client in
            let raw = RawHTTP(port: try #require(client.port))
            let wrong = [("Authorization", "Bearer guess")]
            for _ in 0..<3 { #expect(try await raw.send("GET", Self.page, headers: wrong).status == 401) }
            let limited = try await raw.send("GET", Self.page, headers: wrong)
            #expect(limited.status == 429)
            #expect(limited.errorCode == "rate-limited")
            // `/metrics` is not rate-limited for monitors with the token, but guesses there are charged.
            for _ in 0..<2 { #expect(try await raw.send("GET", "/metrics", headers: [("Authorization", "Bearer \(Self.token)")]).status == 200) }
            #expect(try await raw.send("GET", "/metrics", headers: wrong).status == 429)
        }
    }

    @Test func aPublicBindNeedsATokenOrAnExplicitNoAuth() throws {
        for host in ["0.0.0.0", "::", "192.0.2.10", "trawl.example.org"] {
            var configuration = ServerConfiguration()
            configuration.host = host
            #expect(throws: ServerConfigurationError.self, "\(host)") { try TrawlServer(configuration: configuration) }
            configuration.limits.allowsNoAuthOnPublicBind = true
            #expect(throws: Never.self) { try configuration.checkSafety() }
            configuration.limits.allowsNoAuthOnPublicBind = false
            configuration.limits.token = Self.token
            #expect(throws: Never.self) { try configuration.checkSafety() }
        }
        for host in ["127.0.0.1", "127.0.0.5", "::1", "localhost", "LocalHost"] {
            var configuration = ServerConfiguration()
            configuration.host = host
            #expect(configuration.bindsLoopbackOnly, "\(host)")
            #expect(throws: Never.self) { try configuration.checkSafety() }
        }
    }

    /// `--host anyaddr.localhost` may resolve to `0.0.0.0`: the check judges the addresses a
    /// name binds, not the name, and what is bound is what was judged.
    @Test func theBindCheckJudgesTheAddressesBoundNotTheName() throws {
        func addresses(_ texts: String...) -> [IPAddress] { texts.compactMap { IPAddress(literal: $0) } }
        #expect(ServerConfiguration.isLoopbackOnly(addresses("127.0.0.1", "::1", "127.0.0.53")))
        for list in [addresses("0.0.0.0"), addresses("::"), addresses("127.0.0.1", "0.0.0.0"), addresses("::1", "192.0.2.10"), []] {
            #expect(!ServerConfiguration.isLoopbackOnly(list), "\(list)")
        }
        var configuration = ServerConfiguration()
        configuration.host = "anyaddr.localhost"
        let everywhere: (String) throws -> [IPAddress] = { _ in addresses("0.0.0.0") }
        #expect(!configuration.bindsLoopbackOnly(resolving: everywhere))
        let refusal = #expect(throws: ServerConfigurationError.self) { try configuration.checkSafety(resolving: everywhere) }
        #expect(refusal?.message.contains("anyaddr.localhost (it resolves to 0.0.0.0)") == true, "\(String(describing: refusal))")
        #expect(configuration.listeningHost(resolving: everywhere) == "0.0.0.0")
        let loopback: (String) throws -> [IPAddress] = { _ in addresses("::1", "127.0.0.1") }
        #expect(configuration.bindsLoopbackOnly(resolving: loopback))
        #expect(throws: Never.self) { try configuration.checkSafety(resolving: loopback) }
        #expect(configuration.listeningHost(resolving: loopback) == "127.0.0.1")
        // A name that does not resolve is not shown to be loopback.
        struct NoAddress: Error {}
        #expect(!configuration.bindsLoopbackOnly(resolving: { _ in throw NoAddress() }))
        // Address literals are judged as they are, never looked up; other names are public without a lookup.
        for host in ["::1", "[::1]", "127.0.0.1", "0.0.0.0", "trawl.example.org"] {
            configuration.host = host
            let notLookedUp: (String) throws -> [IPAddress] = { name in
                Issue.record("\(host) was looked up as \(name)")
                return []
            }
            let loopbackOnly = ["::1", "[::1]", "127.0.0.1"].contains(host)
            #expect(configuration.bindsLoopbackOnly(resolving: notLookedUp) == loopbackOnly, "\(host)")
            #expect((try? configuration.checkSafety(resolving: notLookedUp)) != nil || !loopbackOnly, "\(host)")
        }
        configuration.host = "::1"
        #expect(configuration.listeningHost(resolving: { _ in [] }) == "::1")
    }

    /// A port already taken is said in words, without the networking library's type names.
    @Test func aBindThatFailsIsASentence() async throws {
        let first = try ServerFixture.replaying()
        try await ServerFixture.application(first).test(.live) { client in
            let port = try #require(client.port)
            let second = try ServerFixture.replaying { $0.port = port }
            do {
                try await second.run()
                Issue.record("a second server listened on \(port)")
            } catch {
                let sentence = ErrorSentence.describe(error)
                #expect(error is ListenError, "\(error)")
                #expect(sentence.contains("address already in use"), "\(sentence)")
                for word in ["IOError", "SocketAddressError", "descriptor:", "errno"] { #expect(!sentence.contains(word), "\(sentence)") }
            }
        }
    }

    @Test func aHostHeaderNamingAnotherServerIsRefused() async throws {
        let server = try ServerFixture.replaying { $0.limits.publicHosts = ["trawl.example.org"] }
        try await ServerFixture.application(server).test(.live) { client in
            let port = try #require(client.port)
            let raw = RawHTTP(port: port)
            for host in ["attacker.example", "attacker.example:\(port)", "localhost.attacker.example", "trawl.example.org.attacker.example"] {
                let answer = try await raw.send("GET", "/healthz", headers: [("Host", host)])
                #expect(answer.status == 421, "Host: \(host) answered \(answer.status)")
                #expect(answer.errorCode == "unknown-host")
            }
            for host in [
                "127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST.", "app.localhost", "[::1]:\(port)", "trawl.example.org", "TRAWL.example.org.:443",
            ] {
                #expect(try await raw.send("GET", "/healthz", headers: [("Host", host)]).status == 200, "Host: \(host)")
            }
        }
    }

    @Test func writesFromAnotherSitesPageAreRefused() async throws {
        let server = try ServerFixture.replaying { $0.limits.corsOrigins = ["https://app.example"] }
        try await ServerFixture.application(server).test(.live) { client in
            let port = try #require(client.port)
            let raw = RawHTTP(port: port)
            for origin in ["https://attacker.example", "null", "http://127.0.0.1:\(port + 1)"] {
                let answer = try await raw.send("POST", "/v1/sessions", headers: [("Origin", origin), ("Content-Type", "text/plain")], body: "x")
                #expect(answer.status == 403, "Origin: \(origin) answered \(answer.status)")
                #expect(answer.errorCode == "cross-origin-refused")
                let batch = try await raw.send("POST", "/v1/batches", headers: [("Origin", origin), ("Content-Type", "text/plain")], body: "http://a.test/\n")
                #expect(batch.status == 403, "\(batch.body)")
            }
            // The server's own page, an allowed app, and clients that are not browsers.
            for headers in [[("Origin", "http://127.0.0.1:\(port)")], [("Origin", "https://app.example")], []] {
                let answer = try await raw.send("POST", "/v1/sessions", headers: headers)
                #expect(answer.status == 201, "\(headers): \(answer.status) \(answer.body)")
            }
            // Reads are not writes: a cross-site GET is answered (CORS keeps its body from the page).
            #expect(try await raw.send("GET", "/healthz", headers: [("Origin", "https://attacker.example")]).status == 200)
        }
    }

    /// An `<img src>` or a `fetch` on another site's page is a `GET` too: it would make the
    /// server fetch and write its index. Whatever the method, a request a browser says comes
    /// from another site is refused before anything is fetched.
    @Test func requestsFromAnotherSitesPageAreRefusedWhateverTheMethod() async throws {
        let site = try LoopbackServer { request in ServerFixture.page(request.path) }
        defer { site.shutdown() }
        let server = try ServerFixture.live(site: site, hosts: ["a.test"]) { $0.limits.corsOrigins = ["https://app.example"] }
        try await ServerFixture.application(server).test(.live) { client in
            let port = try #require(client.port)
            let raw = RawHTTP(port: port)
            let resolve = "/v1/resolve?q=\(encoded("http://a.test/cat"))"
            let foreign: [[(String, String)]] = [
                [("Sec-Fetch-Site", "cross-site")],  // <img src> on another site's page: no Origin
                [("Sec-Fetch-Site", "same-site")],  // a page on another port of this host
                [("Sec-Fetch-Site", "CROSS-SITE"), ("Sec-Fetch-Mode", "no-cors"), ("Sec-Fetch-Dest", "image")],
                [("Origin", "https://attacker.example")],
                [("Origin", "null")],
                [("Origin", "http://127.0.0.1:\(port + 1)"), ("Sec-Fetch-Site", "same-site")],
            ]
            for headers in foreign {
                for (method, target) in [
                    ("GET", resolve), ("HEAD", resolve), ("GET", "/v1/sessions/0123456789abcdef0123456789abcdef/events"),
                    ("GET", "/v1/batches/0123456789abcdef"), ("POST", "/v1/sessions"),
                ] {
                    let answer = try await raw.send(method, target, headers: headers)
                    #expect(answer.status == 403, "\(method) \(target) with \(headers): \(answer.status) \(answer.body)")
                    if method != "HEAD" { #expect(answer.errorCode == "cross-origin-refused", "\(headers): \(answer.body)") }
                }
            }
            #expect(site.requests.isEmpty, "the server fetched \(site.requests.map(\.path)) for another site's page")
            // Its own page, an allowed app, an address typed into the browser, and clients that are not browsers.
            let served: [[(String, String)]] = [
                [("Sec-Fetch-Site", "same-origin")], [("Origin", "http://127.0.0.1:\(port)"), ("Sec-Fetch-Site", "same-origin")],
                [("Origin", "https://app.example"), ("Sec-Fetch-Site", "cross-site")], [("Sec-Fetch-Site", "none")], [],
            ]
            for headers in served {
                let answer = try await raw.send("GET", resolve, headers: headers)
                #expect(answer.status == 200, "\(headers): \(answer.status) \(answer.body)")
            }
            // The page and /healthz are not the API: another site may link to them.
            #expect(try await raw.send("GET", "/healthz", headers: [("Sec-Fetch-Site", "cross-site")]).status == 200)
            #expect(try await raw.send("GET", "/", headers: [("Sec-Fetch-Site", "cross-site")]).status == 200)
        }
    }

    @Test func aBatchListIsTextOrJSONNothingElse() async throws {
        let site = try LoopbackServer { request in ServerFixture.page(request.path) }
        defer { site.shutdown() }
        let server = try ServerFixture.live(site: site, hosts: ["a.test"])
        try await ServerFixture.application(server).test(.live) { client in
            let raw = RawHTTP(port: try #require(client.port))
            for type in ["multipart/form-data; boundary=x", "application/xml", "application/x-www-form-urlencoded", "text/html"] {
                let answer = try await raw.send("POST", "/v1/batches", headers: [("Content-Type", type)], body: "http://a.test/one\n")
                #expect(answer.status == 415, "\(type): \(answer.status)")
                #expect(answer.errorCode == "unsupported-media-type")
                #expect(answer.body.contains("text/plain"))
            }
            for type in ["text/plain; charset=utf-8", "text/uri-list"] {
                let answer = try await raw.send("POST", "/v1/batches", headers: [("Content-Type", type)], body: "http://a.test/one\n")
                #expect(answer.status == 202, "\(type): \(answer.status) \(answer.body)")
            }
        }
    }

    @Test func onlyWebInputsReachAnEngine() async throws {
        let server = try ServerFixture.replaying()
        try await ServerFixture.application(server).test(.router) { client in
            for input in [
                "data:text/html,<b> hi</b>", "DATA:text/html;base64,PGI+", "javascript:alert(1)", "file:///etc/passwd", "view-source:http://a.test/",
                "about:blank", "blob:http://a.test/x", "chrome://version", "ws://a.test/", "ftp://a.test/x.gif",
                // The term's scheme counts, after a command or a filter, in any case, with blanks before it.
                "!web data:text/html,<img src=\"https://media.test/x.gif\"> with spaces", "!WEB DATA:text/html,<b> hi</b>", "!url data:text/html,a b",
                "!web   data:text/html,a b", "!web \" data:text/html,a b\"", "!web \"\u{01}data:text/html,a b\"", "rating:g data:text/html,<b> hi</b>",
                "!web rating:g data:text/html,<b> hi</b>", "!web lang:en Data:text/html;base64,PGI+IGhp", "!web file:///etc/passwd",
                "!web file:///etc/passwd and more", "!web FILE:/etc/passwd", "!web javascript:alert(1)", "!web view-source:http://a.test/",
                "!web rating:g javascript:alert(1)", "!giphy data:text/html,a b", "!web /etc/passwd", "!web ~/page.html",
            ] {
                let response = try await client.execute(uri: "/v1/resolve?q=\(encoded(input))", method: .get)
                #expect(response.status == .badRequest, "\(input): \(response.status)")
                #expect(try response.errorCode() == "unsupported-scheme", "\(input): \(response.text)")
            }
            // Search words with a colon are searches, not schemes.
            for input in ["rating:g cats", "!giphy cats: the musical", "cats data:text/html,x"] {
                let search = try await client.execute(uri: "/v1/resolve?q=\(encoded(input))", method: .get)
                #expect(try search.errorCode() != "unsupported-scheme", "\(input): \(search.text)")
            }
            // A session's queries are judged the same way.
            let opened = try await client.execute(uri: "/v1/sessions", method: .post)
            let id = try #require(try opened.json()["id"] as? String)
            let typed = try await client.execute(uri: "/v1/sessions/\(id)/query?q=\(encoded("!web DATA:text/html,<b> hi</b>"))", method: .post)
            #expect(typed.status == .badRequest, "\(typed.text)")
            #expect(try typed.errorCode() == "unsupported-scheme")
        }
    }

    @Test func theIndexHoldsOnlyWebPagesAndSearches() {
        func extraction(_ text: String, engine: String) -> Extraction {
            Extraction(request: TrawlCore.Request(text), engine: engine, media: [], isComplete: true)
        }
        #expect(ServedPagesSink.admits(extraction("https://giphy.com/gifs/x", engine: "web")))
        #expect(ServedPagesSink.admits(extraction("http://a.test/page", engine: "web")))
        #expect(ServedPagesSink.admits(extraction("!giphy cats", engine: "giphy")))
        #expect(!ServedPagesSink.admits(extraction("file:///home/me/page.html", engine: "web")))
        #expect(!ServedPagesSink.admits(extraction("data:text/html,x", engine: "web")))
        #expect(!ServedPagesSink.admits(extraction("/home/me/page.html", engine: "web")))
        #expect(!ServedPagesSink.admits(extraction("!local cats", engine: "local")))
    }

    @Test func aQueryReadsPlusAsASpace() {
        let query = FormQuery("q=cats+dogs&limit=5&q=second&x=%2B1&bad=%zz&empty")
        #expect(query.get("q") == "cats dogs")
        #expect(query.get("limit") == "5")
        #expect(query.get("x") == "+1")
        #expect(query.get("bad") == "%zz")
        #expect(query.get("empty") == "")
        #expect(query.get("missing") == nil)
    }

    @Test func canonicalPaths() {
        for path in ["/", "/v1/resolve", "/v1/batches/0123456789abcdef/results", "/healthz"] {
            #expect(CanonicalPathMiddleware<ServerRequestContext>.isCanonical(path), "\(path)")
        }
        for path in [
            "", "//", "//v1/resolve", "/v1/resolve/", "/v1//resolve", "/./v1", "/v1/../v1/resolve", "/v1%2Fresolve", "/v1/resolve;x", "/v1\\resolve", "/v1/..",
            "v1/resolve",
        ] {
            #expect(!CanonicalPathMiddleware<ServerRequestContext>.isCanonical(path), "\(path)")
        }
        #expect(CanonicalPathMiddleware<ServerRequestContext>.suggestion(for: "//v1/./x/../resolve/") == "/v1/resolve")
        #expect(CanonicalPathMiddleware<ServerRequestContext>.suggestion(for: "/v1%2Fresolve") == nil)
    }

    @Test func unknownMethodsAre405WithAllow() async throws {
        let server = try ServerFixture.replaying()
        try await ServerFixture.application(server).test(.live) { client in
            let raw = RawHTTP(port: try #require(client.port))
            for (method, path, allow) in [
                ("TRACE", "/healthz", "GET, HEAD, OPTIONS"), ("POST", "/", "GET, HEAD, OPTIONS"), ("PUT", "/metrics", "GET, HEAD, OPTIONS"),
                ("GET", "/v1/batches", "POST, OPTIONS"), ("PATCH", "/v1/sessions/abc", "GET, DELETE, HEAD, OPTIONS"),
            ] {
                let answer = try await raw.send(method, path)
                #expect(answer.status == 405, "\(method) \(path): \(answer.status)")
                #expect(answer.errorCode == "method-not-allowed")
                #expect(answer.header("Allow") == allow, "\(method) \(path)")
            }
            let head = try await raw.send("HEAD", "/healthz")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            let options = try await raw.send("OPTIONS", "/v1/batches")
            #expect(options.status == 204)
            #expect(options.header("Allow") == "POST, OPTIONS")
        }
    }

    @Test func aHeadHTTPCannotReadIsAJSONError() async throws {
        let server = try ServerFixture.replaying()
        try await ServerFixture.application(server).test(.live) { client in
            let raw = RawHTTP(port: try #require(client.port))
            // Under the parser's limit, over the server's: the middleware's 413.
            let long = try await raw.send("GET", "/v1/resolve?q=" + String(repeating: "a", count: 9000))
            #expect(long.status == 413)
            #expect(long.errorCode == "url-too-long")
            // Over the parser's own limit: still JSON that says why.
            let huge = try await raw.send("GET", "/v1/resolve?q=" + String(repeating: "a", count: 100_000))
            #expect(huge.status == 431, "\(huge.status) \(huge.body)")
            #expect(huge.errorCode == "request-head-too-large")
            let bytes = try await offPool("raw-http") { try raw.exchange(Array("NOT HTTP AT ALL\r\n\r\n".utf8)) }
            let garbage = try RawHTTP.parse(bytes)
            #expect(garbage.status == 400)
            #expect(garbage.errorCode == "malformed-request")
            #expect(!garbage.body.contains("invalid") && !garbage.body.contains("HTTPParserError"), "\(garbage.body)")
        }
    }

    /// A body HTTP cannot read is the client's mistake, answered as a head it cannot read is:
    /// `400 malformed-request`, in words that do not name the parser's states.
    @Test func aBodyHTTPCannotReadIsA400() async throws {
        let site = try LoopbackServer { request in ServerFixture.page(request.path) }
        defer { site.shutdown() }
        let server = try ServerFixture.live(site: site, hosts: ["a.test"])
        try await ServerFixture.application(server).test(.live) { client in
            let raw = RawHTTP(port: try #require(client.port))
            for chunks in ["zz\r\nhttp://a.test/one\r\n0\r\n\r\n", "5\r\nhttp://a.test/one\r\n0\r\n\r\n", "-1\r\nx\r\n0\r\n\r\n"] {
                let request =
                    "POST /v1/batches HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                    + chunks
                let bytes = try await offPool("raw-http") { try raw.exchange(Array(request.utf8)) }
                let answer = try RawHTTP.parse(bytes)
                #expect(answer.status == 400, "\(chunks.debugDescription): \(answer.status) \(answer.body)")
                #expect(answer.errorCode == "malformed-request", "\(answer.body)")
                for word in ["HTTPParserError", "invalid", "Chunk", "chunk size"] {
                    #expect(!answer.body.contains(word), "\(answer.body)")
                }
            }
        }
    }

    /// Two `Host` headers: a proxy in front may have read the other one.
    @Test func twoHostHeadersAreMalformed() async throws {
        let server = try ServerFixture.replaying()
        try await ServerFixture.application(server).test(.live) { client in
            let port = try #require(client.port)
            let raw = RawHTTP(port: port)
            for hosts in [["127.0.0.1:\(port)", "attacker.example"], ["127.0.0.1:\(port)", "127.0.0.1:\(port)"], ["localhost", "LOCALHOST"]] {
                for target in ["/healthz", Self.page] {
                    let answer = try await raw.send("GET", target, headers: hosts.map { ("Host", $0) })
                    #expect(answer.status == 400, "\(hosts) \(target): \(answer.status) \(answer.body)")
                    #expect(answer.errorCode == "malformed-request", "\(answer.body)")
                }
            }
            #expect(try await raw.send("GET", "/healthz", headers: [("Host", "127.0.0.1:\(port)")]).status == 200)
        }
    }

    @Test func secretsInTheInputAreNotEchoed() async throws {
        let site = try LoopbackServer { request in ServerFixture.page(request.path) }
        defer { site.shutdown() }
        let server = try ServerFixture.live(site: site, hosts: ["a.test"])
        try await ServerFixture.application(server).test(.router) { client in
            let uri = "/v1/resolve?q=\(encoded("http://a.test/cat?api_key=K3Y&access_token=T0KEN"))"
            for accept in ["application/json", "text/event-stream"] {
                let answer = try await client.execute(uri: uri, method: .get, headers: [.accept: accept])
                #expect(answer.status == .ok, "\(answer.text)")
                #expect(answer.text.contains("https://media.test/cat.gif"))
                #expect(!answer.text.contains("K3Y") && !answer.text.contains("T0KEN"), "\(accept): \(answer.text)")
            }
        }
    }
}
