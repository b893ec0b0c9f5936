import Foundation
import Synchronization
import Testing
import Trawl
import TrawlTesting

/// A Giphy API on the loopback server (the real engine, libcurl and parser reach it through
/// `connectTo`): two results per page out of `total`, and gates that hold chosen requests until
/// the test lets them go, so responses can arrive in any order the test wants.
final class GatedGiphy: Sendable {
    /// A class around the table: the server's handler captures it, and a `Mutex` cannot be copied.
    private final class Gates: Sendable {
        let table = Mutex<[String: DispatchSemaphore]>([:])
    }

    private let gates = Gates()
    let server: LoopbackServer

    /// `totals[term]`: how many results the term has (default 100); `failing`: "term@offset"
    /// answered with HTTP 500.
    init(totals: [String: Int] = [:], failing: Set<String> = []) throws {
        let gates = self.gates
        server = try LoopbackServer { request in
            let items = URLComponents(string: "http://x" + request.target)?.queryItems ?? []
            let term = items.first { $0.name == "q" }?.value ?? ""
            let offset = Int(items.first { $0.name == "offset" }?.value ?? "0") ?? 0
            let key = "\(term)@\(offset)"
            if let gate = gates.table.withLock({ $0[key] }) { gate.wait() }
            if failing.contains(key) { return .status(500) }
            let total = totals[term] ?? 100
            let count = max(0, min(2, total - offset))
            let data = (0..<count).map { n in
                #"{"id":"\#(term)\#(offset + n)","title":"\#(term) \#(offset + n)","images":{"original":{"url":"https://media.giphy.com/media/\#(term)\#(offset + n)/giphy.gif","width":"480","height":"270"}}}"#
            }.joined(separator: ",")
            return .json(#"{"data":[\#(data)],"pagination":{"total_count":\#(total),"count":\#(count),"offset":\#(offset)}}"#)
        }
    }

    /// Holds requests for `term` at `offset` until ``release(_:offset:)``.
    func hold(_ term: String, offset: Int = 0) {
        gates.table.withLock { $0["\(term)@\(offset)"] = DispatchSemaphore(value: 0) }
    }

    func release(_ term: String, offset: Int = 0) {
        gates.table.withLock { $0["\(term)@\(offset)"] }?.signal()
    }

    /// Lets every held request go (a test's end: no server thread left waiting).
    func releaseAll() {
        for gate in gates.table.withLock({ Array($0.values) }) { gate.signal() }
        server.shutdown()
    }

    /// The terms asked for, in order, as `term@offset`.
    var asked: [String] { server.requests.map(Self.term) }

    /// A request's `term@offset`.
    static func term(_ request: TestRequest) -> String {
        let items = URLComponents(string: "http://x" + request.target)?.queryItems ?? []
        return "\(items.first { $0.name == "q" }?.value ?? "")@\(items.first { $0.name == "offset" }?.value ?? "0")"
    }

    func provider() -> SearchProvider {
        var configuration = TrawlConfiguration(loader: LoaderConfiguration(timeout: .seconds(20), connectTo: ["::\(server.host):\(server.port)"]))
        configuration.plainHTTP = true
        configuration.search = TrawlConfiguration.Search(giphyKey: "test-key", defaultEngine: "giphy")
        return SearchProvider(configuration)
    }

    /// Waits until the server has seen `request` (its arrival wakes the wait; the time limit is
    /// a guard against hanging only).
    func waitForRequest(_ request: String) async throws {
        try await server.waitForRequests(within: .seconds(120)) { $0.map(Self.term).contains(request) }
    }
}

extension SearchSession.State {
    var results: SearchSession.SearchResults? {
        if case .results(let results) = self { return results }
        return nil
    }

    var failure: SearchSession.SearchFailure? {
        if case .failed(let failure) = self { return failure }
        return nil
    }

    var isSearching: Bool {
        if case .searching = self { return true }
        return false
    }

    var isIdle: Bool {
        if case .idle = self { return true }
        return false
    }
}

/// Reads `events` until a state satisfies `condition`; every state seen is kept in `seen`.
func next(
    _ events: inout AsyncStream<SearchSession.State>.Iterator, seen: inout [SearchSession.State],
    where condition: (SearchSession.State) -> Bool
) async throws -> SearchSession.State {
    while let state = await events.next() {
        seen.append(state)
        if condition(state) { return state }
    }
    throw CancellationError()
}

@Suite("Search session", .timeLimit(.minutes(5)))
struct SearchSessionTests {
    @Test("A burst of keystrokes makes one search, after the debounce, for the last text")
    func burst() async throws {
        let giphy = try GatedGiphy()
        defer { giphy.releaseAll() }
        let clock = TestClock()
        let session = SearchSession(provider: giphy.provider(), options: .init(limit: 2), clock: clock)
        var events = session.events().makeAsyncIterator()
        var seen: [SearchSession.State] = []
        for text in ["!giphy c", "!giphy ca", "!giphy cat"] { await session.search(text) }
        let deadline = try await clock.nextSleep()
        #expect(deadline == .milliseconds(250))
        #expect(giphy.asked.isEmpty)
        clock.advance(to: deadline)
        let done = try await next(&events, seen: &seen) { $0.results?.isLoading == false }
        #expect(giphy.asked == ["cat@0"])
        #expect(done.results?.query.term == "cat")
        #expect(done.results?.hasMore == true)
        #expect(done.results?.media.map(\.title) == ["cat 0", "cat 1"])
        // idle, then searching, then results: nothing for the replaced texts.
        #expect(seen.first?.isIdle == true)
        #expect(seen.compactMap(\.results).allSatisfy { $0.query.term == "cat" })
    }

    @Test("Latest wins: a slower earlier response never replaces a later one")
    func outOfOrder() async throws {
        let giphy = try GatedGiphy()
        defer { giphy.releaseAll() }
        let session = SearchSession(provider: giphy.provider(), options: .init(limit: 2))
        var events = session.events().makeAsyncIterator()
        var seen: [SearchSession.State] = []
        giphy.hold("slow")
        await session.searchNow("!giphy slow")
        try await giphy.waitForRequest("slow@0")
        await session.searchNow("!giphy fast")
        let fast = try await next(&events, seen: &seen) { $0.results?.isLoading == false }
        #expect(fast.results?.query.term == "fast")
        // The slow answer arrives now; the session has moved on.
        giphy.release("slow")
        await session.searchNow("!giphy third")
        let third = try await next(&events, seen: &seen) { $0.results?.isLoading == false }
        #expect(third.results?.query.term == "third")
        #expect(seen.compactMap(\.results).allSatisfy { $0.query.term != "slow" })
        // Sequence numbers only grow.
        let sequences = seen.compactMap(\.results).map(\.sequence)
        #expect(sequences == sequences.sorted())
        #expect(session.state.results?.query.term == "third")
    }

    @Test("Load-more: one page in flight, none for a replaced query, none after the last page")
    func guardedLoadMore() async throws {
        let giphy = try GatedGiphy(totals: ["dog": 2])
        defer { giphy.releaseAll() }
        let session = SearchSession(provider: giphy.provider(), options: .init(limit: 2))
        var events = session.events().makeAsyncIterator()
        var seen: [SearchSession.State] = []
        // Nothing to load more of yet.
        #expect(await session.loadMore() == false)
        await session.searchNow("!giphy cat")
        _ = try await next(&events, seen: &seen) { $0.results?.isLoading == false }

        giphy.hold("cat", offset: 2)
        #expect(await session.loadMore() == true)
        #expect(await session.loadMore() == false)  // one page at a time
        try await giphy.waitForRequest("cat@2")

        // A new query while the page is in flight: the page is dropped.
        await session.searchNow("!giphy dog")
        let dog = try await next(&events, seen: &seen) { $0.results?.isLoading == false && $0.results?.query.term == "dog" }
        giphy.release("cat", offset: 2)
        #expect(dog.results?.hasMore == false)
        #expect(await session.loadMore() == false)  // the last page
        #expect(session.state.results?.media.map(\.title) == ["dog 0", "dog 1"])
        #expect(giphy.asked.filter { $0.hasPrefix("cat") } == ["cat@0", "cat@2"])
    }

    @Test("Load-more appends pages until the last")
    func pages() async throws {
        let giphy = try GatedGiphy(totals: ["cat": 5])
        defer { giphy.releaseAll() }
        let session = SearchSession(provider: giphy.provider(), options: .init(limit: 2))
        var events = session.events().makeAsyncIterator()
        var seen: [SearchSession.State] = []
        await session.searchNow("!giphy cat")
        var state = try await next(&events, seen: &seen) { $0.results?.isLoading == false }
        while state.results?.hasMore == true {
            #expect(await session.loadMore())
            _ = try await next(&events, seen: &seen) { $0.results?.isLoading == true }
            state = try await next(&events, seen: &seen) { $0.results?.isLoading == false }
        }
        #expect(state.results?.media.map(\.title) == ["cat 0", "cat 1", "cat 2", "cat 3", "cat 4"])
        #expect(giphy.asked == ["cat@0", "cat@2", "cat@4"])
    }

    @Test("An error mid-stream fails the query and keeps what had arrived")
    func errorMidStream() async throws {
        let giphy = try GatedGiphy(failing: ["cat@2"])
        defer { giphy.releaseAll() }
        let session = SearchSession(provider: giphy.provider(), options: .init(limit: 2))
        var events = session.events().makeAsyncIterator()
        var seen: [SearchSession.State] = []
        await session.searchNow("!giphy cat")
        _ = try await next(&events, seen: &seen) { $0.results?.isLoading == false }
        #expect(await session.loadMore())
        let failed = try await next(&events, seen: &seen) { $0.failure != nil }
        let failure = try #require(failed.failure)
        #expect(failure.sets.flatMap(\.media).count == 2)
        #expect("\(failure.error)".contains("HTTP 500"))
        #expect(await session.loadMore() == false)
        // A new query recovers.
        await session.searchNow("!giphy dog")
        let dog = try await next(&events, seen: &seen) { $0.results?.isLoading == false }
        #expect(dog.results?.query.term == "dog")
    }

    @Test("Empty text cancels what is in flight and goes idle")
    func clearing() async throws {
        let giphy = try GatedGiphy()
        defer { giphy.releaseAll() }
        let session = SearchSession(provider: giphy.provider(), options: .init(limit: 2))
        var events = session.events().makeAsyncIterator()
        var seen: [SearchSession.State] = []
        giphy.hold("cat")
        await session.searchNow("!giphy cat")
        try await giphy.waitForRequest("cat@0")
        await session.search("   ")
        _ = try await next(&events, seen: &seen) { $0.isSearching }
        _ = try await next(&events, seen: &seen) { $0.isIdle }
        giphy.release("cat")
        #expect(session.state.isIdle)
        #expect(await session.loadMore() == false)
    }

    @Test("The session pages through the local index too")
    func localIndex() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-session-\(UUID().uuidString)/index.sqlite").path
        let index = try MediaIndex(path: path)
        let writer = IndexWriter(index: index)
        for n in 0..<25 {
            let media = Media(url: "https://a.test/\(n).gif", kind: .gif, title: "cat \(n)", provenance: Provenance(parser: "test", origin: .document))
            writer.record(Extraction(request: Request("https://a.test/page\(n)"), engine: "web", media: [media], isComplete: true))
        }
        await writer.close()
        var configuration = TrawlConfiguration()
        configuration.localIndex = index
        let session = SearchSession(provider: SearchProvider(configuration), options: .init(limit: 10))
        var events = session.events().makeAsyncIterator()
        var seen: [SearchSession.State] = []
        await session.searchNow("!local cat")
        var state = try await next(&events, seen: &seen) { $0.results?.isLoading == false }
        #expect(state.results?.sets.first?.facets?.site.first?.count == 25)
        while state.results?.hasMore == true {
            #expect(await session.loadMore())
            _ = try await next(&events, seen: &seen) { $0.results?.isLoading == true }
            state = try await next(&events, seen: &seen) { $0.results?.isLoading == false }
        }
        #expect(state.results?.media.count == 25)
        #expect(Set(state.results?.media.map(\.url) ?? []).count == 25)
    }
}
