import Foundation
import Trawl
import TrawlCore

/// The server's search sessions (`/v1/sessions`): one ``SearchSession`` per app or page that
/// searches as its user types, found by an unguessable id.
///
/// Sessions cost memory and may hold work in flight, so there are at most
/// ``ServerLimits/maxSessions``, and one left alone for ``ServerLimits/sessionIdleTimeout``
/// (no query, load-more or close) is closed the next time the registry is used: its event
/// streams end and its work is cancelled.
actor SessionRegistry {
    private struct Entry {
        let session: SearchSession
        /// The client that opened it (``ServerLimits/maxSessionsPerClient``).
        let client: String
        var lastUsed: ContinuousClock.Instant
    }

    private let provider: SearchProvider
    private let limits: ServerLimits
    private let metrics: ServerMetrics
    /// What a session opened with `probe=true` probes with (the server's `--probe-renditions`).
    private let probe: MediaProber.Options
    private var entries: [String: Entry] = [:]

    init(provider: SearchProvider, limits: ServerLimits, metrics: ServerMetrics, probe: MediaProber.Options = .init()) {
        self.provider = provider
        self.limits = limits
        self.metrics = metrics
        self.probe = probe
    }

    /// Opens a session.
    /// - Parameters:
    ///   - debounce: how long it waits for the typing to stop (the server's default when `nil`).
    ///   - limit: media per page asked of the engines.
    ///   - probe: each media checked with a ranged GET (``SearchSession/Options/probe``).
    ///   - keepDead: with `probe`, dead media kept (marked) rather than left out.
    ///   - client: who opens it.
    /// - Returns: its id.
    /// - Throws: `429 too-many-sessions` when `client` has ``ServerLimits/maxSessionsPerClient``
    ///   open; `503 too-many-sessions` when ``ServerLimits/maxSessions`` are open and none is idle.
    func open(debounce: Duration?, limit: Int?, probe: Bool = false, keepDead: Bool = false, client: String = "local") throws -> String {
        sweep()
        guard entries.values.count(where: { $0.client == client }) < limits.maxSessionsPerClient else {
            throw APIError(
                .tooManyRequests, code: "too-many-sessions",
                message: "this client has \(limits.maxSessionsPerClient) search sessions open; close one (DELETE /v1/sessions/ID)",
                headers: [.retryAfter: "10"])
        }
        guard entries.count < limits.maxSessions else {
            throw APIError(
                .serviceUnavailable, code: "too-many-sessions",
                message: "\(limits.maxSessions) search sessions are open; close one (DELETE /v1/sessions/ID) or try again later",
                headers: [.retryAfter: "10"])
        }
        let id = Self.newID()
        var probing = self.probe
        probing.keepDead = keepDead
        let options = SearchSession.Options(debounce: debounce ?? limits.sessionDebounce, limit: limit, probe: probe ? probing : nil)
        entries[id] = Entry(session: SearchSession(provider: provider, options: options), client: client, lastUsed: .now)
        metrics.sessionsOpen.set(entries.count)
        return id
    }

    /// The session `id`, marked as used now.
    /// - Throws: `404 not-found` for an id that was never opened, was closed or idled out.
    func use(_ id: String) throws -> SearchSession {
        sweep()
        guard var entry = entries[id] else { throw Self.unknown(id) }
        entry.lastUsed = .now
        entries[id] = entry
        return entry.session
    }

    /// The session `id` for watching its events (watching does not count as use: a page that
    /// only listens still idles out).
    func watch(_ id: String) throws -> SearchSession {
        sweep()
        guard let entry = entries[id] else { throw Self.unknown(id) }
        return entry.session
    }

    /// Closes session `id`: its work is cancelled and its event streams end.
    func close(_ id: String) async throws {
        guard let entry = entries.removeValue(forKey: id) else { throw Self.unknown(id) }
        metrics.sessionsOpen.set(entries.count)
        await entry.session.close()
    }

    /// Closes every session (the server is stopping).
    func closeAll() async {
        let sessions = entries.values.map(\.session)
        entries = [:]
        metrics.sessionsOpen.set(0)
        for session in sessions { await session.close() }
    }

    var count: Int { entries.count }

    /// Closes the sessions idle for longer than the timeout.
    private func sweep() {
        let now = ContinuousClock.now
        let idle = entries.filter { now - $0.value.lastUsed >= limits.sessionIdleTimeout }
        guard !idle.isEmpty else { return }
        for id in idle.keys { entries[id] = nil }
        metrics.sessionsOpen.set(entries.count)
        for entry in idle.values {
            let session = entry.session
            Task { await session.close() }
        }
    }

    static func unknown(_ id: String) -> APIError {
        APIError(.notFound, code: "not-found", message: "no search session '\(ResolveParameters.shown(id))' on this server (closed, or idle too long)")
    }

    /// 128 random bits in hex: the id is the only key to a session.
    static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let value = generator.next() as UInt64
            let hex = String(value, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
