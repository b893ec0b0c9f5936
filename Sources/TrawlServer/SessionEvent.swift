import Trawl
import TrawlCore

/// One state of a search session as `GET /v1/sessions/{id}/events` sends it: an NDJSON line,
/// or the data of a server-sent event named after ``state``.
///
/// Result sets are sent once: each `results` (or `failed`) event carries only the sets that
/// arrived since the last event this client was sent for the same query, and ``from`` says
/// where they go — `0` starts the query's list afresh, more is appended to what the client
/// has. A client that reconnects says what it has with `?after=SEQUENCE.COUNT`.
struct SessionEvent: Codable, Sendable {
    /// `idle`, `searching`, `results` or `failed`.
    var state: String
    /// The query's sequence number (absent for `idle`): states of an older query than the one
    /// a client last asked for are stale.
    var sequence: Int?
    /// The query text.
    var query: String?
    /// Result sets new since the last event, as `/v1/resolve` streams them.
    var sets: [ResultSetLine]?
    /// The position of `sets[0]` among the query's sets.
    var from: Int?
    /// There is a next page (`POST /v1/sessions/{id}/more` fetches it).
    var hasMore: Bool?
    /// A page is still arriving.
    var loading: Bool?
    /// Why the query (or its last page) failed.
    var error: ErrorSummary?
}

/// What one client was sent: turns each session state into the event carrying only what is new.
struct SessionEventCursor: Sendable {
    private var sequence: Int
    private var count: Int

    /// - Parameter after: `SEQUENCE.COUNT` — the client already has `COUNT` sets of query
    ///   `SEQUENCE` (`nil`: nothing yet).
    init(after: String?) throws {
        guard let after else {
            sequence = -1
            count = 0
            return
        }
        let parts = after.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let sequence = Int(parts[0]), let count = Int(parts[1]), sequence >= 0, count >= 0 else {
            throw APIError.usage("invalid-request", "after must be SEQUENCE.COUNT (two whole numbers), not '\(ResolveParameters.shown(after))'")
        }
        self.sequence = sequence
        self.count = count
    }

    mutating func event(for state: SearchSession.State) -> SessionEvent {
        switch state {
        case .idle:
            return SessionEvent(state: "idle")
        case .searching(let query):
            return SessionEvent(state: "searching", query: query.raw)
        case .results(let results):
            var event = SessionEvent(state: "results", sequence: results.sequence, query: results.query.raw)
            (event.sets, event.from) = newSets(results.sets, sequence: results.sequence, input: results.query.raw)
            event.hasMore = results.hasMore
            event.loading = results.isLoading
            return event
        case .failed(let failure):
            var event = SessionEvent(state: "failed", sequence: failure.sequence, query: failure.query.raw)
            (event.sets, event.from) = newSets(failure.sets, sequence: failure.sequence, input: failure.query.raw)
            event.error = ErrorStatus.apiError(for: failure.error).summary
            return event
        }
    }

    private mutating func newSets(_ sets: [ResultSet], sequence: Int, input: String) -> ([ResultSetLine], Int) {
        // A newer query, or fewer sets than the client has (it cannot be the same list): afresh.
        let start = sequence == self.sequence && count <= sets.count ? count : 0
        self.sequence = sequence
        count = sets.count
        return (sets[start...].map { ResultSetLine($0, input: input) }, start)
    }
}
