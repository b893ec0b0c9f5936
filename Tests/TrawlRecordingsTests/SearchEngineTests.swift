import Foundation
import Testing
import Trawl
import TrawlCore
import TrawlEngines
import TrawlParsers
import TrawlRecordings
import TrawlTesting

@Suite("Search engines")
struct SearchEngineTests {
    static let recordings = Corpus.repositoryRoot.appendingPathComponent("Recordings")

    func run(_ name: String) async throws -> [ResultSet] {
        let recorded = try #require(try RecordedCase.all(in: Self.recordings).first { $0.name == name })
        let run = await CaseRun(recorded)
        if let error = run.error { throw error }
        return run.sets
    }

    @Test func giphyPagesByOffset() async throws {
        let first = try await run("giphy/search-cats-page1")
        #expect(first.last?.next == .offset(3))
        #expect(first.last?.total == 5)
        let second = try await run("giphy/search-cats-page2")
        #expect(second.last?.next == nil)
    }

    @Test func tenorPagesByCursor() async throws {
        let first = try await run("tenor/search-cats-page1")
        #expect(first.last?.next == .cursor("CAgQAg"))
        let second = try await run("tenor/search-cats-page2")
        #expect(second.last?.next == nil)
    }

    @Test func aMissingKeyNamesTheVariable() async {
        var configuration = TrawlConfiguration()
        configuration.search = TrawlConfiguration.Search(giphyKey: nil, tenorKey: nil)
        let provider = SearchProvider(configuration)
        for (query, variable) in [("!giphy cats", "TRAWL_GIPHY_KEY"), ("!tenor cats", "TRAWL_TENOR_KEY"), ("cats rating:g", "TRAWL_TENOR_KEY")] {
            await #expect {
                for try await _ in provider.results(for: Request(query)) {}
            } throws: { error in
                (error as? SearchError)?.code == .missingConfiguration && "\(error)".contains(variable)
            }
        }
    }

    @Test func queryParametersReachTheAPI() throws {
        let giphy = GiphySearchEngine(apiKey: "k")
        let request = Request("!giphy hello world rating:pg lang:es limit:5", pagination: .offset(10))
        _ = try giphy.handler(for: request)
        #expect(throws: SearchError.self) { try TenorSearchEngine(apiKey: "k").handler(for: Request("!tenor cats rating:bogus")) }
        #expect(throws: SearchError.self) { try TenorSearchEngine(apiKey: "k").handler(for: Request("!tenor cats", pagination: .offset(20))) }
    }

    @Test func aBadEndpointIsAnErrorNotACrash() throws {
        for engine in [GiphySearchEngine(apiKey: "k", endpoint: "not a url") as any Engine, TenorSearchEngine(apiKey: "k", endpoint: "::")] {
            #expect {
                _ = try engine.handler(for: Request("!\(engine.name) cats"))
            } throws: { error in
                (error as? SearchError)?.code == .invalidRequest && "\(error)".contains("endpoint")
            }
        }
    }
}
