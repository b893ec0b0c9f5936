import Synchronization
import TrawlCore

/// Search as the user types: debounced queries, the latest query wins, guarded load-more, and
/// the session's state as a property and as a stream of events.
///
/// - **Debounce**: ``search(_:)`` waits ``Options/debounce`` on the session's clock; each call
///   within the wait replaces the one before, so a burst of keystrokes makes one search.
/// - **Latest wins**: every query gets the next sequence number; work for an older one is
///   cancelled (down to its transfers) and anything it still delivers is dropped.
/// - **Load-more**: ``loadMore()`` asks for the next page only when the current results are
///   complete, have a next page, and no page is in flight; never for a replaced query.
/// - **Events**: ``state`` now, and ``events()`` for every change (the current state first).
///
/// ```swift
/// let session = SearchSession(provider: SearchProvider())
/// Task { for await state in session.events() { render(state) } }
/// await session.search("!giphy cat")   // as the user types
/// await session.loadMore()             // when the list scrolls to its end
/// ```
///
/// Works with every engine the provider has: pasted URLs, `!giphy`, `!tenor`, `!local`.
public actor SearchSession {
    /// What the session is doing.
    public enum State: Sendable {
        /// No query (none yet, or an empty one).
        case idle
        /// The query's first results have not arrived yet.
        case searching(Query)
        /// Results so far (they may grow while ``SearchResults/isLoading``).
        case results(SearchResults)
        /// The search (or a load-more) failed; ``SearchFailure/sets`` keeps what had arrived.
        case failed(SearchFailure)
    }

    /// The result sets of the current query, in the order they arrived, every page so far.
    public struct SearchResults: Sendable {
        public var query: Query
        /// The query's sequence number: higher is newer.
        public var sequence: Int
        public var sets: [ResultSet]
        /// There is a next page (``loadMore()`` will fetch it once ``isLoading`` is false).
        public var hasMore: Bool
        /// A stream is still open: the first page still arriving, or a next page on its way.
        public var isLoading: Bool

        /// Every media of every set, each file once.
        public var media: [Media] { MediaCollection(sets.flatMap(\.media)).media }
    }

    /// Why the current query has no (more) results.
    public struct SearchFailure: Sendable {
        public var query: Query
        public var sequence: Int
        public var error: any Error
        /// What had arrived before the error.
        public var sets: [ResultSet]
    }

    /// How the session paces and pages.
    public struct Options: Sendable {
        /// How long the text must stay unchanged before a search starts.
        public var debounce: Duration = .milliseconds(250)
        /// Results per page asked of the engine (a hint; `nil`: the engine's default).
        public var limit: Int?
        /// Each media of each result set checked with a ranged GET before the session shows it
        /// (``MediaProber``, through the provider's own transport: its guard, politeness and
        /// cache): dead media left out unless kept, stills relabelled. `nil`: as the provider's
        /// environment says.
        public var probe: MediaProber.Options?

        public init(debounce: Duration = .milliseconds(250), limit: Int? = nil, probe: MediaProber.Options? = nil) {
            self.debounce = debounce
            self.limit = limit
            self.probe = probe
        }
    }

    private struct Published {
        var state: State = .idle
        var subscribers: [Int: AsyncStream<State>.Continuation] = [:]
        var nextSubscriber = 0
    }

    private let provider: SearchProvider
    private let options: Options
    private let clock: any Clock<Duration>
    /// The published state, readable without awaiting the actor (a class: stream terminations
    /// capture it, and a `Mutex` cannot be copied).
    private final class Shared: Sendable {
        let published = Mutex(Published())
    }

    private let shared = Shared()

    private var sequence = 0
    private var query: Query?
    private var sets: [ResultSet] = []
    private var next: Pagination?
    private var searchTask: Task<Void, Never>?
    private var pageTask: Task<Void, Never>?
    /// The prober of ``Options/probe``, made on first use (it needs the provider's transport).
    private var prober: MediaProber?

    /// - Parameters:
    ///   - provider: answers every query (its engines are the session's: URLs, `!giphy`, `!local`…).
    ///   - options: the debounce and the page size.
    ///   - clock: what the debounce waits on (a test clock in tests).
    public init(provider: SearchProvider, options: Options = Options(), clock: any Clock<Duration> = ContinuousClock()) {
        self.provider = provider
        self.options = options
        self.clock = clock
    }

    deinit {
        searchTask?.cancel()
        pageTask?.cancel()
        for continuation in shared.published.withLock({ $0.subscribers.values }) { continuation.finish() }
    }

    /// The state now, for binding a view to.
    public nonisolated var state: State { shared.published.withLock { $0.state } }

    /// Every state from now on, starting with the current one. Each call gives a stream of its
    /// own; it ends when the consumer stops iterating or the session goes away.
    public nonisolated func events() -> AsyncStream<State> {
        let (stream, continuation) = AsyncStream<State>.makeStream(bufferingPolicy: .unbounded)
        let id = shared.published.withLock { published -> Int in
            let id = published.nextSubscriber
            published.nextSubscriber += 1
            published.subscribers[id] = continuation
            continuation.yield(published.state)
            return id
        }
        continuation.onTermination = { [shared] _ in
            _ = shared.published.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sets the query text (each keystroke): after the debounce, unless replaced meanwhile, the
    /// search starts. Empty text cancels everything and goes back to ``State/idle``.
    /// - Returns: the query's sequence number: the states of this query carry it (a client
    ///   watching ``events()`` can tell them from those of the query before).
    @discardableResult
    public func search(_ text: String) -> Int {
        let (sequence, query) = begin(text)
        guard let query else { return sequence }
        let clock = self.clock
        let debounce = options.debounce
        searchTask = Task {
            do {
                try await clock.sleep(for: debounce)
            } catch {
                return  // a newer keystroke
            }
            await self.start(query, sequence: sequence)
        }
        return sequence
    }

    /// Starts `text` at once, without the debounce (a search button, a pasted URL).
    /// - Returns: the query's sequence number, as ``search(_:)``.
    @discardableResult
    public func searchNow(_ text: String) -> Int {
        let (sequence, query) = begin(text)
        guard let query else { return sequence }
        searchTask = Task { await self.start(query, sequence: sequence) }
        return sequence
    }

    /// Supersedes what runs and parses `text`; empty text goes back to ``State/idle`` and gives
    /// no query.
    private func begin(_ text: String) -> (sequence: Int, query: Query?) {
        let sequence = supersede()
        guard !text.allSatisfy(\.isWhitespace) else {
            query = nil
            publish(.idle)
            return (sequence, nil)
        }
        return (sequence, Query(parsing: text))
    }

    /// The sequence number of the latest query (what ``search(_:)`` last returned).
    public var currentSequence: Int { sequence }

    /// Asks for the next page of the current query.
    /// - Returns: whether a request started: `false` while a page is in flight, after the last
    ///   page, or with no results to go on from.
    @discardableResult
    public func loadMore() -> Bool {
        guard let query, let next, searchTask == nil, pageTask == nil else { return false }
        switch state {
        case .results: break
        case .idle, .searching, .failed: return false
        }
        let sequence = self.sequence
        let request = Request(query: query, pagination: next, limit: options.limit)
        self.next = nil
        publish(.results(SearchResults(query: query, sequence: sequence, sets: sets, hasMore: false, isLoading: true)))
        pageTask = Task { await self.consume(request, sequence: sequence, isFirstPage: false) }
        return true
    }

    /// Cancels whatever is in flight and goes back to ``State/idle``.
    public func cancel() {
        _ = supersede()
        query = nil
        publish(.idle)
    }

    /// Ends the session: cancels whatever is in flight, publishes ``State/idle`` and ends every
    /// ``events()`` stream. Later calls do nothing useful: a closed session is dropped.
    public func close() {
        cancel()
        let continuations = shared.published.withLock { published -> [AsyncStream<State>.Continuation] in
            defer { published.subscribers = [:] }
            return Array(published.subscribers.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    // MARK: Work

    /// A new sequence number; everything for older ones is cancelled.
    private func supersede() -> Int {
        sequence += 1
        searchTask?.cancel()
        pageTask?.cancel()
        searchTask = nil
        pageTask = nil
        sets = []
        next = nil
        return sequence
    }

    private func start(_ query: Query, sequence: Int) async {
        guard sequence == self.sequence else { return }
        self.query = query
        publish(.searching(query))
        await consume(Request(query: query, limit: options.limit), sequence: sequence, isFirstPage: true)
    }

    /// Reads one page's stream into the state, as long as `sequence` is the current query's.
    private func consume(_ request: Request, sequence: Int, isFirstPage: Bool) async {
        var pageNext: Pagination?
        do {
            for try await set in await results(for: request) {
                guard sequence == self.sequence else { return }
                sets.append(set)
                pageNext = set.next ?? pageNext
                publish(.results(SearchResults(query: request.query, sequence: sequence, sets: sets, hasMore: pageNext != nil, isLoading: true)))
            }
        } catch {
            guard sequence == self.sequence else { return }
            finishTask(isFirstPage)
            publish(.failed(SearchFailure(query: request.query, sequence: sequence, error: error, sets: sets)))
            return
        }
        guard sequence == self.sequence, !Task.isCancelled else { return }
        finishTask(isFirstPage)
        next = pageNext
        publish(.results(SearchResults(query: request.query, sequence: sequence, sets: sets, hasMore: pageNext != nil, isLoading: false)))
    }

    /// The provider's stream for `request`, probed when ``Options/probe`` says so.
    private func results(for request: Request) async -> AsyncThrowingStream<ResultSet, any Error> {
        guard let probe = options.probe else { return provider.results(for: request) }
        if prober == nil { prober = MediaProber(transport: provider.environment.transport, options: probe) }
        return provider.results(for: request, checkingWith: prober)
    }

    private func finishTask(_ isFirstPage: Bool) {
        if isFirstPage { searchTask = nil } else { pageTask = nil }
    }

    private func publish(_ state: State) {
        shared.published.withLock { published in
            published.state = state
            for continuation in published.subscribers.values { continuation.yield(state) }
        }
    }
}
