import Foundation
import Testing

@testable import TrawlCore

/// Inputs that look like places must reach the web engine or be refused; never a search engine.
@Suite("Query locations")
struct QueryLocationTests {
    @Test(arguments: [
        ("https://giphy.com/gifs/cat-123", "https://giphy.com/gifs/cat-123"),
        ("HTTP://Example.com/a?b=c", "HTTP://Example.com/a?b=c"),
        ("file:///tmp/page.html", "file:///tmp/page.html"),
        ("file://localhost/tmp/page.html", "file://localhost/tmp/page.html"),
        ("data:text/html,%3Cp%3Ehi%3C%2Fp%3E", "data:text/html,%3Cp%3Ehi%3C%2Fp%3E"),
        ("www.giphy.com", "https://www.giphy.com"),
        ("www.giphy.com/gifs/x", "https://www.giphy.com/gifs/x"),
        ("giphy.com/gifs/cat-123", "https://giphy.com/gifs/cat-123"),
        ("i.imgur.com/a.gifv", "https://i.imgur.com/a.gifv"),
        ("//media.tenor.com/x.gif", "https://media.tenor.com/x.gif"),
        ("http://[::1]:8080/p", "http://[::1]:8080/p"),
    ])
    func readableURLs(input: String, url: String) {
        let query = Query(parsing: input)
        #expect(query.url != nil, "\(input)")
        #expect(query.url?.absoluteString == url)
    }

    @Test(arguments: [
        "http://exa mple.com/",
        "http://",
        "https://",
        "https:///path-without-host",
        "http://exa_mple..com/",
        "file://remote.example/etc/passwd",
        "file:relative.html",
        "ftp://example.com/a.gif",
        "ws://example.com/socket",
        "/home/me/page.html",
        "./page.html",
        "../page.html",
        "~/page.html",
        "www.exa mple.com/x",
        "https://giphy.com/gifs/x funny cats",
        "data:nocomma",
        "htp:/broken.example.com/x",
        "htps:/giphy.com/gifs/x",
        "localhost:8080/x",
        "LOCALHOST./x",
        "localhost:8080",
        "intranet:8080/x",
        "saved-page.html",
        "pages/cat.htm",
    ])
    func unusableLocations(input: String) throws {
        let query = Query(parsing: input)
        #expect(query.url == nil, "\(input)")
        let problem = try #require(query.location.problem, "\(input) should be refused")
        // The sentence names the input (its first word at least: the rest may be cut by a space).
        let firstWord = String(input.prefix(while: { $0 != " " }))
        #expect(problem.contains(firstWord), "\(problem)")
    }

    @Test(arguments: [
        "cats", "cats rating:g", "funny cat.gif", "example.com", "r/cats", "C++ tips", "3.14 pi", "!giphy hello", "re:zero", "mood:2 cats", "html tips",
    ])
    func searchTerms(input: String) {
        let query = Query(parsing: input)
        #expect(query.url == nil)
        #expect(query.location == .none, "\(input)")
    }

    @Test func providerRefusesUnusableLocationsBeforeAnyEngine() async throws {
        let environment = Environment(transport: FixedTransport(payloads: [:]), scanner: nil, parsers: ParserChain([]))
        let provider = SearchProvider(
            environment: environment, webEngine: EchoEngine(name: "web"), engines: [EchoEngine(name: "tenor")], defaultEngine: "tenor")
        for input in ["http://exa mple.com/", "/etc/passwd", "ftp://x.example/a.gif"] {
            do {
                for try await _ in provider.results(for: Request(input)) {}
                Issue.record("\(input) reached an engine")
            } catch SearchError.Code.invalidURL {
            } catch {
                Issue.record("\(input): unexpected \(error)")
            }
        }
        // A pasted URL without a scheme goes to the web engine, not to search.
        var urls: [String] = []
        for try await set in provider.results(for: Request("giphy.com/gifs/x")) { urls += set.media.map(\.url) }
        #expect(urls == ["https://x.example/web/giphy.com/gifs/x.gif"])
        // `!tenor` with a URL-looking term is a search the user asked for.
        urls = []
        for try await set in provider.results(for: Request("!tenor http://")) { urls += set.media.map(\.url) }
        #expect(urls == ["https://x.example/tenor/http://.gif"])
    }
}
