import Foundation
import Testing
import Trawl
import TrawlCore
import TrawlFetch
import TrawlTesting

/// The whole path — provider, web engine, libcurl, libxml2, parsers — against a loopback server.
/// `connectTo` sends every host to the server, so real page URLs are used and nothing can leave
/// the machine.
func resolveAll(_ url: String, server: LoopbackServer, timeout: Duration = .seconds(10)) async throws -> [ResultSet] {
    let configuration = TrawlConfiguration(loader: LoaderConfiguration(timeout: timeout, connectTo: ["::\(server.host):\(server.port)"]))
    let provider = SearchProvider(configuration)
    var sets: [ResultSet] = []
    for try await set in provider.results(for: Request(url)) { sets.append(set) }
    return sets
}

/// `https://host/path` → `http://host/path`: the loopback server speaks plain HTTP.
func overHTTP(_ url: String) -> String {
    url.hasPrefix("https://") ? "http://" + url.dropFirst(8) : url
}

@Suite("Resolve against the corpus", .timeLimit(.minutes(5)))
struct CorpusRecallTests {
    @Test(.tags(.corpus)) func genericParsersRecallOnRealSitePages() async throws {
        let entries = try Corpus.siteEntries()
        var files: [String: TestResponse] = [:]
        for entry in entries {
            // The path and query exactly as written (URL.path drops a trailing slash).
            let afterScheme = entry.url.split(separator: "://", maxSplits: 1).last ?? ""
            let target = afterScheme.firstIndex(of: "/").map { String(afterScheme[$0...]) } ?? "/"
            let type = entry.kind == "json" ? "application/json" : "text/html; charset=utf-8"
            files[target] = .ok(headers: [("Content-Type", type)], body: try Data(contentsOf: entry.path))
        }
        let server = try LoopbackServer(files: files)
        defer { server.shutdown() }

        var expectedTotal = 0
        var foundTotal = 0
        for entry in entries {
            let sets: [ResultSet]
            do {
                // Site rewrites go to https URLs, which the plain-HTTP server cannot answer:
                // a short timeout lets them fail fast and the page be read instead.
                sets = try await resolveAll(overHTTP(entry.url), server: server, timeout: .seconds(2))
            } catch {
                // A page whose resolve fails finds nothing; recall counts it.
                print("error \(entry.file): \(error)")
                sets = []
            }
            let urls = Set(sets.flatMap(\.media).flatMap(\.allURLs).map(CanonicalURL.key))
            let hits = entry.expected_media.filter { urls.contains(CanonicalURL.key($0)) }.count
            expectedTotal += entry.expected_media.count
            foundTotal += hits
            print("recall \(hits)/\(entry.expected_media.count)  media \(sets.flatMap(\.media).count)  \(entry.file)")
        }
        let recall = Double(foundTotal) / Double(max(expectedTotal, 1))
        print("generic-parser recall over \(entries.count) corpus responses: \(foundTotal)/\(expectedTotal) = \(String(format: "%.3f", recall))")
        #expect(recall >= 0.6)
    }

    @Test func giphyPageYieldsGifMp4AndWebp() async throws {
        let entry = try #require(try Corpus.siteEntries().first { $0.file == "giphy/gif-page-the-office-no.html" })
        let body = try Data(contentsOf: entry.path)
        let server = try LoopbackServer { _ in .ok(headers: [("Content-Type", "text/html")], body: body) }
        defer { server.shutdown() }
        let sets = try await resolveAll(overHTTP(entry.url), server: server)
        let urls = Set(sets.flatMap(\.media).flatMap(\.allURLs))
        for expected in entry.expected_media { #expect(urls.contains(expected), "\(expected)") }
        #expect(sets.flatMap(\.media).allSatisfy { $0.page == overHTTP(entry.url) })
    }
}

@Suite("Resolve when the server misbehaves", .timeLimit(.minutes(5)))
struct MisbehavingServerTests {
    let server: LoopbackServer

    init() throws {
        let page = #"<html><head><meta property="og:video" content="https://m.example/v.mp4"></head></html>"#
        var latin1 = Data(#"<html><head><title>caf"#.utf8)
        latin1.append(0xE9)
        latin1.append(contentsOf: Data(#"</title><meta property="og:image" content="https://m.example/c.gif"></head></html>"#.utf8))
        let bigPage = Self.bigPage
        let badCharset = latin1
        server = try LoopbackServer { request in
            switch request.path {
            case "/slow":
                .drip(headers: [("Content-Type", "text/html")], chunks: Array(repeating: Data(page.utf8.prefix(10)), count: 30), interval: .milliseconds(500))
            case "/plain": .ok(headers: [("Content-Type", "text/plain")], body: Data(page.utf8))
            case "/charset": .ok(headers: [("Content-Type", "text/html; charset=utf-8")], body: badCharset)
            case "/missing": .html("<html><body>gone</body></html>", status: 404)
            case "/big": .ok(headers: [("Content-Type", "text/html")], body: bigPage)
            case "/loop": .redirect("/loop")
            default: .status(404)
            }
        }
    }

    /// A 30 MB single-line page with one GIF at the end.
    static let bigPage: Data = {
        var html = Data("<html><body><p>".utf8)
        let filler = Data(String(repeating: "lorem ipsum dolor sit amet ", count: 1000).utf8)
        while html.count < 30 << 20 { html.append(filler) }
        html.append(Data(#"</p><img src="https://m.example/last.gif" width="300"></body></html>"#.utf8))
        return html
    }()

    /// The media URLs of the page at `path`. The short timeout is for the server's stalls; a
    /// test of a page that takes long to send on a loaded machine gives its own.
    func urls(_ path: String, timeout: Duration = .seconds(2)) async throws -> [String] {
        try await resolveAll("http://127.0.0.1:\(server.port)\(path)", server: server, timeout: timeout).flatMap(\.media).map(\.url)
    }

    @Test func slowPageTimesOutWithAClearError() async {
        await #expect { try await urls("/slow") } throws: { error in
            (error as? FetchError)?.code == .timedOut && String(describing: error).contains("/slow")
        }
    }

    @Test func htmlServedAsPlainTextStillParses() async throws {
        #expect(try await urls("/plain") == ["https://m.example/v.mp4"])
    }

    @Test func bytesInvalidForTheCharsetStillParse() async throws {
        #expect(try await urls("/charset") == ["https://m.example/c.gif"])
    }

    @Test func errorStatusWithoutMediaIsAnError() async {
        await #expect { try await urls("/missing") } throws: { String(describing: $0).contains("HTTP 404") }
    }

    @Test func thirtyMegabytePage() async throws {
        // What is tested is that the page resolves, not how fast: a debug build reading 31.5 MB
        // beside the rest of the suite takes longer than the other pages' 2 s.
        #expect(try await urls("/big", timeout: .seconds(120)) == ["https://m.example/last.gif"])
    }

    @Test func redirectLoopIsAnError() async {
        await #expect { try await urls("/loop") } throws: { ($0 as? FetchError)?.code == .tooManyRedirects }
    }

    @Test func oneBadInputDoesNotStopTheNext() async throws {
        _ = try? await urls("/loop")
        #expect(try await urls("/plain") == ["https://m.example/v.mp4"])
    }
}
