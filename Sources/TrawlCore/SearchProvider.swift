/// The one entry point: picks the engine for a request, runs it in the environment and streams
/// its result sets.
///
/// - A query whose term is a URL goes to the web engine; one that only looks like a URL or a
///   local path (`http://exa mple.com/`, `/home/me/page.html`) is an error naming it.
/// - `!name …` goes to the engine called `name` (an unknown name is an error listing the engines).
/// - Anything else goes to the default search engine.
///
/// ```swift
/// for try await set in provider.results(for: Request("https://giphy.com/gifs/…")) {
///     print(set.media.map(\.url))
/// }
/// ```
///
/// A value: its engines are fixed when it is made, so it is shared freely and asked without an
/// `await`.
public struct SearchProvider: Sendable {
    public let environment: Environment
    private let webEngine: any Engine
    private let engines: [String: any Engine]
    private let defaultEngineName: String?

    public init(environment: Environment, webEngine: any Engine, engines: [any Engine] = [], defaultEngine: String? = nil) {
        self.environment = environment
        self.webEngine = webEngine
        self.defaultEngineName = defaultEngine
        var byName: [String: any Engine] = [:]
        for engine in [webEngine] + engines {
            for name in [engine.name] + engine.aliases { byName[name.lowercased()] = engine }
        }
        self.engines = byName
    }

    /// The names `!name` accepts, sorted.
    public var engineNames: [String] { Set(engines.values.map(\.name)).sorted() }

    /// The engine that serves `query`.
    /// - Throws: ``SearchError`` for an unknown `!name`, an empty query, a term that looks like
    ///   a URL but cannot be read (``SearchError/Code/invalidURL``), or no default engine.
    public func engine(for query: Query) throws -> any Engine {
        if let command = query.command {
            guard let engine = engines[command] else {
                throw SearchError(
                    .unknownEngine, "unknown engine '!\(command)' in '\(query.raw)'; engines: \(engineNames.map { "!\($0)" }.joined(separator: ", "))")
            }
            return engine
        }
        if query.url != nil { return webEngine }
        // A broken URL or a local path must never leave the machine as a search query.
        if let problem = query.location.problem { throw SearchError(.invalidURL, problem) }
        guard !query.term.isEmpty || !query.parameters.isEmpty else {
            throw SearchError(.emptyQuery, "nothing to search for in '\(query.raw)'")
        }
        guard let name = defaultEngineName, let engine = engines[name] else {
            throw SearchError(
                .noDefaultEngine,
                "'\(query.raw)' is not a URL and no default search engine is set; use !name with one of: \(engineNames.map { "!\($0)" }.joined(separator: ", "))"
            )
        }
        return engine
    }

    /// The result sets for `request`, as they arrive. Cancelling the consuming task cancels the
    /// work underneath, down to the transfers.
    public func results(for request: Request) -> AsyncThrowingStream<ResultSet, any Error> {
        results(for: request, checkingWith: environment.checker)
    }

    /// The result sets for `request`, each passed through `checker` instead of the
    /// environment's (`nil`: none) before it is yielded and before the sink hears of it: a
    /// caller that probes some requests and not others (a search session with `probe`) shares
    /// one provider.
    public func results(for request: Request, checkingWith checker: (any MediaChecker)?) -> AsyncThrowingStream<ResultSet, any Error> {
        let environment = self.environment
        let handler: Handler
        let engineName: String
        do {
            let engine = try engine(for: request.query)
            engineName = engine.name
            handler = try engine.handler(for: request)
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
        let sink = environment.sink
        guard sink != nil || checker != nil else {
            return AsyncThrowingStream(running: { continuation in try await handler(environment, continuation) })
        }
        return AsyncThrowingStream(running: { continuation in
            // The sets pass through as they come (checked first, when there is a checker); the
            // sink hears once, at the end, with all of them.
            let sets = AsyncThrowingStream<ResultSet, any Error>(running: { try await handler(environment, $0) })
            var found = MediaCollection()
            do {
                for try await set in sets {
                    let set = if let checker { await checker.check(set, for: request) } else { set }
                    found.insert(contentsOf: set.media)
                    continuation.yield(set)
                }
            } catch {
                sink?.record(Extraction(request: request, engine: engineName, media: found.media, isComplete: false))
                throw error
            }
            // A consumer that stopped early (a limit) ends the inner stream without an error.
            sink?.record(Extraction(request: request, engine: engineName, media: found.media, isComplete: !Task.isCancelled))
        })
    }
}
