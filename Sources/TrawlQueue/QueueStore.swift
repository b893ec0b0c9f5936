import Foundation
import Logging
import PostgresNIO
import TrawlBatch
import TrawlStore

/// A batch's jobs in PostgreSQL, shared by every worker that connects: the same coalesced
/// jobs, intake marks, results and output marks as the SQLite ``JobStore``, plus leases and a
/// host row per host that carries the fleet's politeness.
///
/// Open one with ``withStore(_:logger:_:)``: the connection pool runs for the closure's
/// lifetime and closes after it.
///
/// ```swift
/// try await QueueStore.withStore(try QueueLocation("postgres://trawl@db/crawl"), logger: logger) { store in
///     print(try await store.progress())
/// }
/// ```
public struct QueueStore: Sendable {
    /// Where the queue is (no password).
    public let location: QueueLocation
    let client: PostgresClient
    let logger: Logger
    /// Notifications on ``workChannel``, for this process's workers.
    let signal: WorkSignal

    /// The channel workers `LISTEN` on: work arrived, a full host has room, leases returned.
    static let workChannel = "trawl_work"

    /// Connects to `location`, brings the schema up to date and runs `body`; the pool closes
    /// when `body` returns or throws.
    /// One connection of the pool listens for notifications for as long as the store is open.
    /// - Parameters:
    ///   - migrate: apply pending migrations first (tests pass `false` to set up an old schema).
    ///   - connections: the pool's size (workers of one process share it).
    public static func withStore<Result: Sendable>(
        _ location: QueueLocation, logger: Logger, migrate: Bool = true, connections: Int = 8,
        _ body: @Sendable (QueueStore) async throws -> Result
    ) async throws -> Result {
        var configuration = location.clientConfiguration
        configuration.options.maximumConnections = max(2, connections + 1)
        // The pool's own chatter (connections opened and closed) stays out of the command's output.
        let quiet = Logger(label: "trawl.queue.pool", factory: { _ in SwiftLogNoOpLogHandler() })
        let client = PostgresClient(configuration: configuration, backgroundLogger: quiet)
        let store = QueueStore(location: location, client: client, logger: logger, signal: WorkSignal())
        // The pool runs in a task of its own, not a child: cancelling the caller (Ctrl-C) must
        // not close the pool under the worker that is putting its jobs back. It is stopped
        // here, after `body`, whichever way `body` ends.
        let pool = Task { await client.run() }
        var listener: Task<Void, Never>?
        func shutDown() async {
            // The listener is told first, so the closing connection is not taken for a failure.
            listener?.cancel()
            store.signal.finish()
            pool.cancel()
            await pool.value
        }
        do {
            try await store.checkReachable()
            if migrate { try await store.migrate() }
            listener = Task { await store.listen() }
            let result = try await body(store)
            await shutDown()
            return result
        } catch {
            await shutDown()
            throw error
        }
    }

    /// Listens on ``workChannel`` until cancelled, handing each notification to ``signal``;
    /// a dropped connection is listened on again (workers also look at the queue on their
    /// lease timer, so a notification lost meanwhile delays work, never loses it).
    private func listen() async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: Self.workChannel) { notifications in
                        signal.signal()  // whatever happened before the LISTEN took effect
                        for try await _ in notifications { signal.signal() }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.debug("the queue's notification connection failed; listening again", metadata: ["error": "\(Self.reason(error))"])
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// One direct connection first: the pool would keep retrying a server that is not there,
    /// where a user wants to be told at once (refused, unknown database, login failed).
    private func checkReachable() async throws {
        do {
            let connection = try await PostgresConnection.connect(
                configuration: try location.connectionConfiguration, id: 0, logger: logger)
            try? await connection.close()
        } catch {
            throw QueueError(.unreachable, location: location.description, message: "cannot reach the queue: \(Self.reason(error))", underlying: error)
        }
    }

    /// Applies the migrations not yet applied (up to `last`, all by default); returns their names.
    @discardableResult
    public func migrate(upTo last: String? = nil) async throws -> [String] {
        do {
            return try await QueueSchema.migrate(client, upTo: last, logger: logger)
        } catch {
            throw QueueError(.schema, location: location.description, message: "cannot bring the queue's schema up to date: \(Self.reason(error))", underlying: error)
        }
    }

    /// Whether this store's connections to the server are encrypted (`pg_stat_ssl`).
    public func usesTLS() async throws -> Bool {
        try await run("read whether the connection uses TLS") {
            let rows = try await client.query("SELECT COALESCE((SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()), false)", logger: logger)
            for try await encrypted in rows.decode(Bool.self) { return encrypted }
            return false
        }
    }

    /// The names of the migrations applied, oldest first.
    public func appliedMigrations() async throws -> [String] {
        try await run("read the migrations") {
            var names: [String] = []
            let rows = try await client.query("SELECT name FROM trawl_migrations ORDER BY applied_at, name", logger: logger)
            for try await name in rows.decode(String.self) { names.append(name) }
            return names
        }
    }

    /// Runs `body`, turning what PostgreSQL or the connection throws into a ``QueueError``
    /// that says what was being done; a deadlock or serialisation failure is tried again.
    @discardableResult
    func run<T>(_ what: String, _ body: () async throws -> T) async throws -> T {
        var tries = 0
        while true {
            do {
                return try await body()
            } catch let error as QueueError {
                throw error
            } catch let error as PSQLError where tries < 5 && Self.isRetryable(error) {
                tries += 1
                continue
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw QueueError(.failed, location: location.description, message: "cannot \(what): \(Self.reason(error))", underlying: error)
            }
        }
    }

    /// Deadlock detected (40P01) or a serialisation failure (40001): the transaction was rolled back whole.
    static func isRetryable(_ error: PSQLError) -> Bool {
        guard let state = error.serverInfo?[.sqlState] else { return false }
        return state == "40P01" || state == "40001"
    }

    /// The server's own message when there is one (postgres-nio's description hides it).
    static func reason(_ error: any Error) -> String {
        if let psql = error as? PSQLError {
            if let message = psql.serverInfo?[.message] { return message }
            // A TLS handshake that failed (certificate not trusted, server without TLS) says why beneath.
            if let underlying = psql.underlying { return "\(psql.code): \(underlying)" }
            return "\(psql.code)"
        }
        return "\(error)"
    }
}
