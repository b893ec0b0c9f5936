import Foundation
public import Logging
import PostgresNIO
import TrawlStore

/// A batch's jobs in PostgreSQL, shared by every worker that connects: the same coalesced
/// jobs, intake marks, results and output marks as the SQLite `JobStore`, plus leases and a
/// host row per host that carries the fleet's politeness.
///
/// Open one with ``withStore(_:logger:migrate:connections:_:)``: the connection pool runs for the closure's
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
    /// Whether the server is reachable; shared by every copy of the store.
    let link: QueueLink
    /// Operations wait out an outage (``reconnecting``) instead of failing.
    let reconnects: Bool
    /// How long an operation may go unanswered before it is taken for lost (and, in a
    /// reconnecting store, tried again); nil: as long as its connection is open.
    var stallLimit: Duration?

    /// The channel workers `LISTEN` on: work arrived, a full host has room, leases returned.
    static let workChannel = "trawl_work"

    /// Connects to `location`, brings the schema up to date and runs `body`; the pool closes
    /// when `body` returns or throws.
    /// One connection of the pool listens for notifications for as long as the store is open.
    /// - Parameters:
    ///   - location: the database.
    ///   - logger: where connection events and outages are logged.
    ///   - migrate: apply pending migrations first (tests pass `false` to set up an old schema).
    ///   - connections: the pool's size (workers of one process share it).
    ///   - body: what to do with the open store.
    public static func withStore<Result: Sendable>(
        _ location: QueueLocation, logger: Logger, migrate: Bool = true, connections: Int = 8,
        _ body: @Sendable (QueueStore) async throws -> Result
    ) async throws -> Result {
        var configuration = location.clientConfiguration
        configuration.options.maximumConnections = max(2, connections + 1)
        // The pool's own chatter (connections opened and closed) stays out of the command's output.
        let quiet = Logger(label: "trawl.queue.pool", factory: { _ in SwiftLogNoOpLogHandler() })
        let client = PostgresClient(configuration: configuration, backgroundLogger: quiet)
        let store = QueueStore(
            location: location, client: client, logger: logger, signal: WorkSignal(), link: QueueLink(location: location, logger: logger), reconnects: false)
        // The pool runs in a task of its own, not a child: cancelling the caller (Ctrl-C) must
        // not close the pool under the worker that is putting its jobs back. It is stopped
        // here, after `body`, whichever way `body` ends.
        let pool = Task { await client.run() }
        var listener: Task<Void, Never>?
        func shutDown() async {
            // The listener is told first, so the closing connection is not taken for a failure.
            listener?.cancel()
            store.link.close()
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

    /// The same store, whose operations wait out an outage: an operation that loses its
    /// connection (the server crashed, restarted or cut it) waits until the server answers
    /// again and is then tried again (see `QueueLink`), where the store itself fails at
    /// once. Workers and the batch use it; a one-off command such as `trawl queue status`
    /// should rather say that the server is gone.
    ///
    /// An operation tried again after a lost connection may already have committed (the
    /// connection went between the commit and its answer). Every operation a worker runs is
    /// safe to repeat: a claim whose answer was lost leaves its jobs leased to no running
    /// attempt, so their leases expire and they are worked again; a finish repeated finds its
    /// leases gone and changes nothing, and counts every outcome its first try wrote (done,
    /// failed or a retry) as kept, not as late.
    ///
    /// An operation whose connection closed without its answer is taken for lost about a
    /// second later (postgres-nio drops a request written to a connection that is closing, as
    /// `pg_terminate_backend` leaves it: its answer never comes), and so is one that goes
    /// unanswered for `stallLimit` on a connection still open; the next try, on another
    /// connection, answers.
    public func reconnecting(stallLimit: Duration = .seconds(30)) -> QueueStore {
        var store = QueueStore(location: location, client: client, logger: logger, signal: signal, link: link, reconnects: true)
        store.stallLimit = stallLimit
        return store
    }

    /// The same store, failing at once when the connection is lost (with the same stall limit).
    /// Wakes with each notification that new work was queued (the worker's idle wait).
    package func workNotifications() -> AsyncStream<Void> { signal.subscribe() }

    /// Whether the server is out right now (an outage not yet over).
    package var isServerOut: Bool { link.isOut }

    package var failingFast: QueueStore {
        var store = QueueStore(location: location, client: client, logger: logger, signal: signal, link: link, reconnects: false)
        store.stallLimit = stallLimit
        return store
    }

    /// How often this store (any of its copies) lost its server, and how many connections the
    /// probe tried until it answered again.
    public var outages: Outages { link.figures }

    /// Whether an outage ended less than `seconds` ago (workers then renew their leases
    /// before anyone's are returned).
    package func recovered(within seconds: Double) -> Bool { link.recovered(within: seconds) }

    /// Listens on ``workChannel`` until cancelled, handing each notification to ``signal``.
    /// A dropped connection is listened on again once the server answers (workers also look
    /// at the queue on their lease timer, so a notification lost meanwhile delays work, never
    /// loses it); each new `LISTEN` wakes the workers, who look at the queue then.
    private func listen() async {
        var failures = 0
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: Self.workChannel) { notifications in
                        failures = 0
                        link.succeeded()
                        signal.signal()  // whatever happened before the LISTEN took effect
                        for try await _ in notifications { signal.signal() }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.debug("the queue's notification connection failed; listening again", metadata: ["error": "\(Self.reason(error))"])
                if QueueLink.isConnectionLoss(error) {
                    link.lost(error)
                    do { try await link.ready() } catch { return }
                } else {
                    // Another failure (the LISTEN refused): tried again with backoff as well.
                    try? await Task.sleep(for: .milliseconds(Int64(QueueLink.delay(before: failures) * 1000)))
                    failures += 1
                }
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
            throw QueueError(
                .schema, location: location.description, message: "cannot bring the queue's schema up to date: \(Self.reason(error))", underlying: error)
        }
    }

    /// Whether this store's connections to the server are encrypted (`pg_stat_ssl`).
    public func usesTLS() async throws -> Bool {
        try await run("read whether the connection uses TLS") { connection in
            let rows = try await connection.query("SELECT COALESCE((SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()), false)", logger: logger)
            for try await encrypted in rows.decode(Bool.self) { return encrypted }
            return false
        }
    }

    /// The names of the migrations applied, oldest first.
    public func appliedMigrations() async throws -> [String] {
        try await run("read the migrations") { connection in
            var names: [String] = []
            let rows = try await connection.query("SELECT name FROM trawl_migrations ORDER BY applied_at, name", logger: logger)
            for try await name in rows.decode(String.self) { names.append(name) }
            return names
        }
    }

    /// Runs `body` on a connection of the pool, turning what PostgreSQL or the connection
    /// throws into a ``QueueError`` that says what was being done; a deadlock or serialisation
    /// failure is tried again, and so, in a ``reconnecting`` store, is a lost connection, once
    /// the server answers again. `body` is not waited for once its connection has closed
    /// without an answer, nor past ``stallLimit``.
    /// - Parameter lostConnection: called each time `body` lost its connection and is to be tried again.
    @discardableResult
    func run<T: Sendable>(
        _ what: String, lostConnection: () -> Void = {}, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let client = self.client
        var tries = 0
        while true {
            if reconnects { try await link.ready() }
            do {
                let value = try await QueueLink.answer(within: stallLimit) { watch in
                    try await client.withConnection { connection in
                        watch.watch(connection)
                        return try await body(connection)
                    }
                }
                if reconnects { link.succeeded() }
                return value
            } catch let error as QueueError {
                throw error
            } catch  where tries < 5 && Self.isRetryable(error) {
                tries += 1
                continue
            } catch is CancellationError {
                throw CancellationError()
            } catch  where reconnects && !Task.isCancelled && QueueLink.isConnectionLoss(error) {
                link.lost(error)
                lostConnection()
                continue
            } catch {
                throw QueueError(.failed, location: location.description, message: "cannot \(what): \(Self.reason(error))", underlying: error)
            }
        }
    }

    /// Deadlock detected (40P01) or a serialisation failure (40001): the transaction was rolled back whole.
    static func isRetryable(_ error: any Error) -> Bool {
        if let transaction = error as? PostgresTransactionError {
            return QueueLink.cause(of: transaction).map(isRetryable) ?? false
        }
        guard let state = (error as? PSQLError)?.serverInfo?[.sqlState] else { return false }
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
