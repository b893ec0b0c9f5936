import Foundation
import Testing

@testable import TrawlCore

/// A transport over fixed payloads: the "recorded internet" for these tests.
struct FixedTransport: PayloadTransport {
    var payloads: [String: Payload]
    func payloads(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        AsyncThrowingStream { continuation in
            if let payload = payloads[request.url.absoluteString] { continuation.yield(payload) }
            continuation.finish()
        }
    }
}

struct StubParser: Parser {
    var name: String
    var stage: ParserStage
    var result: Result<[String], ParseError>
    func canParse(_ info: PayloadInfo) -> Bool { true }
    func parse(_ payload: Payload) throws -> ResultSet {
        let urls = try result.get()
        return ResultSet(media: urls.map { Media(url: $0, kind: .gif, provenance: Provenance(parser: name, origin: payload.info.origin)) })
    }
}

struct EchoEngine: Engine {
    var name: String
    func handler(for request: Request) throws -> Handler {
        Handler { _, continuation in
            continuation.yield(
                ResultSet(media: [
                    Media(url: "https://x.example/\(name)/\(request.query.term).gif", kind: .gif, provenance: Provenance(parser: name, origin: .document))
                ]))
        }
    }
}

@Suite("Parser chain and provider")
struct ProviderTests {
    let payload = Payload(body: Data("x".utf8), info: PayloadInfo(url: URL(string: "https://site.example/p")!, contentType: "text/html"))

    @Test func siteParserWinsWhenItFindsMedia() {
        let chain = ParserChain([
            StubParser(name: "generic", stage: .generic, result: .success(["https://x.example/g.gif"])),
            StubParser(name: "site", stage: .site, result: .success(["https://x.example/s.gif"])),
        ])
        let set = chain.parse(payload)
        #expect(set.media.map(\.url) == ["https://x.example/s.gif"])
        #expect(!set.isDegraded)
    }

    @Test func fallingThroughIsDegraded() {
        let failure = ParseError(parser: "site", url: "https://site.example/p", reason: "key 'gif' vanished")
        let chain = ParserChain([
            StubParser(name: "site", stage: .site, result: .failure(failure)),
            StubParser(name: "og", stage: .generic, result: .success(["https://x.example/g.gif"])),
            StubParser(name: "ld", stage: .generic, result: .success(["https://x.example/g.gif", "https://x.example/h.gif"])),
            StubParser(name: "regex", stage: .fallback, result: .success(["https://x.example/r.gif"])),
        ])
        let set = chain.parse(payload)
        #expect(set.media.map(\.url) == ["https://x.example/g.gif", "https://x.example/h.gif"])
        #expect(set.degradation?.failures.first?.parser == "site")
        #expect(set.degradation?.failures.first?.reason.contains("vanished") == true)
        #expect(set.degradation?.answeredBy == "og+ld")
        #expect(chain.parse(payload, stages: .fallback).media.map(\.url) == ["https://x.example/r.gif"])
    }

    @Test func emptySiteParserThenNothingIsNotDegraded() {
        let chain = ParserChain([StubParser(name: "site", stage: .site, result: .success([]))])
        let set = chain.parse(payload)
        #expect(set.media.isEmpty && !set.isDegraded)
    }

    func provider() -> SearchProvider {
        let environment = Environment(transport: FixedTransport(payloads: [:]), scanner: nil, parsers: ParserChain([]))
        return SearchProvider(
            environment: environment, webEngine: EchoEngine(name: "web"), engines: [EchoEngine(name: "giphy"), EchoEngine(name: "tenor")],
            defaultEngine: "tenor")
    }

    @Test func routing() async throws {
        let provider = provider()
        #expect(try provider.engine(for: Query(parsing: "https://a.example/x")).name == "web")
        #expect(try provider.engine(for: Query(parsing: "!giphy cats")).name == "giphy")
        #expect(try provider.engine(for: Query(parsing: "cats")).name == "tenor")
        var urls: [String] = []
        for try await set in provider.results(for: Request("!giphy cats")) { urls += set.media.map(\.url) }
        #expect(urls == ["https://x.example/giphy/cats.gif"])
    }

    @Test func unknownEngineListsTheEngines() async {
        await #expect {
            for try await _ in provider().results(for: Request("!imgr cats")) {}
        } throws: { error in
            guard let error = error as? SearchError, error.code == .unknownEngine else { return false }
            return error.message.contains("!imgr") && error.message.contains("!giphy") && error.message.contains("!tenor")
        }
    }

    @Test func mergedStreamDedupes() async throws {
        let stream = AsyncThrowingStream<ResultSet, any Error> { continuation in
            let a = Media(url: "https://x.example/a.gif", kind: .gif, provenance: Provenance(parser: "p", origin: .document))
            continuation.yield(ResultSet(media: [a]))
            continuation.yield(ResultSet(media: [a, Media(url: "https://x.example/b.gif", kind: .gif, provenance: a.provenance)]))
            continuation.finish()
        }
        var last: [Media] = []
        for try await snapshot in stream.mergedMedia() { last = snapshot }
        #expect(last.map(\.url) == ["https://x.example/a.gif", "https://x.example/b.gif"])
    }
}
