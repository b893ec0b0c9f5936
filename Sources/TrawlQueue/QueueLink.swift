import Foundation
import Logging
import PostgresNIO
import Synchronization
import TrawlCore

/// Whether a store can reach its server, for the operations that wait out an outage (a
/// worker's, the batch's): the first operation that loses its connection opens an outage
/// (one warning), operations then wait here instead of failing, and a probe tries a
/// connection of its own with exponential backoff and jitter (``OutageStateMachine/firstDelay``
/// doubling up to ``OutageStateMachine/longestDelay``) until the server answers again. Then
/// the waiting operations go on, and the first to succeed ends the outage (one line saying how
/// long it lasted). ``OutageStateMachine`` keeps the outage; this class does its IO.
///
/// The probe connects directly, not through the pool: the pool queues requests while it
/// cannot connect and retries on its own schedule, so what this side counts and paces is one
/// connection attempt at a time, whatever number of operations wait.
final class QueueLink: Sendable {
    private struct State {
        var machine = OutageStateMachine()
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        var nextWaiter = 0
        var probe: Task<Void, Never>?
    }

    private let state = Mutex(State())
    private let location: QueueLocation
    private let logger: Logger
    private let clock = ContinuousClock()

    init(location: QueueLocation, logger: Logger) {
        self.location = location
        self.logger = logger
    }

    /// Outages and probes so far.
    var figures: QueueStore.Outages { state.withLock { $0.machine.figures } }

    /// Whether an outage is open and the probe has not reached the server yet.
    var isOut: Bool { state.withLock { $0.machine.isOut } }

    /// Whether the last outage ended less than `seconds` ago.
    package func recovered(within seconds: Double) -> Bool {
        state.withLock { $0.machine.recovered(within: .milliseconds(Int64(seconds * 1000)), now: clock.now) }
    }

    /// Returns at once while the server is reachable; during an outage, once the probe reached it.
    /// - Throws: `CancellationError` when the caller is cancelled, a ``QueueError`` when the store closes.
    func ready() async throws {
        let id = state.withLock { state -> Int? in
            guard state.machine.mustWait else { return nil }
            state.nextWaiter += 1
            return state.nextWaiter
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    guard state.machine.mustWait, !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// An operation (or the notification connection) lost its connection: opens an outage if
    /// none is open, or, if the probe had reached the server, probes again where the backoff left off.
    func lost(_ error: any Error) {
        let lost = state.withLock { $0.machine.lost(now: clock.now) }
        if lost == .opened {
            logger.warning(
                "lost the connection to the queue; waiting for it with backoff (jobs in flight go on)",
                metadata: ["queue": "\(location)", "error": "\(QueueStore.reason(error))"])
        }
        if lost != .none { startProbe() }
    }

    /// An operation succeeded: an open outage is over.
    func succeeded() {
        let ended = state.withLock { state -> (OutageStateMachine.Outage, [CheckedContinuation<Void, any Error>], Task<Void, Never>?)? in
            guard let outage = state.machine.succeeded(now: clock.now) else { return nil }
            let waiters = Array(state.waiters.values)
            state.waiters.removeAll()
            let probe = state.probe
            state.probe = nil
            return (outage, waiters, probe)
        }
        guard let (outage, waiters, probe) = ended else { return }
        probe?.cancel()
        for waiter in waiters { waiter.resume() }
        let lasted = outage.since.duration(to: clock.now)
        logger.notice(
            "reconnected to the queue",
            metadata: ["queue": "\(location)", "outage.seconds": "\(String(format: "%.1f", lasted.seconds))", "outage.attempts": "\(outage.attempts)"])
    }

    /// The store is closing: the probe stops, waiting operations fail.
    func close() {
        let (waiters, probe) = state.withLock { state in
            state.machine.close()
            let waiters = Array(state.waiters.values)
            state.waiters.removeAll()
            let probe = state.probe
            state.probe = nil
            return (waiters, probe)
        }
        probe?.cancel()
        for waiter in waiters {
            waiter.resume(throwing: QueueError(.unreachable, location: location.description, message: "the queue was closed while waiting for its server"))
        }
    }

    /// How long to wait before probe number `attempt` (0-based): ``OutageStateMachine/delay(before:jitter:)``
    /// at a random point in its upper half.
    static func delay(before attempt: Int) -> Double {
        OutageStateMachine.delay(before: attempt, jitter: Double.random(in: 0.5...1))
    }

    private func startProbe() {
        let task = Task { [self] in await probe() }
        let stale = state.withLock { state -> Task<Void, Never>? in
            let stale = state.probe
            state.probe = task
            return stale
        }
        stale?.cancel()
    }

    private func probe() async {
        while !Task.isCancelled {
            guard let attempt = state.withLock({ $0.machine.nextProbe }) else { return }
            try? await Task.sleep(for: .milliseconds(Int64(Self.delay(before: attempt) * 1000)))
            if Task.isCancelled { return }
            let stillOut = state.withLock { $0.machine.probing() }
            guard stillOut else { return }
            do {
                try await reach()
            } catch {
                logger.debug("the queue's server is still unreachable", metadata: ["error": "\(QueueStore.reason(error))"])
                continue
            }
            let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
                guard !Task.isCancelled, state.machine.reached() else { return [] }
                state.probe = nil
                let waiters = Array(state.waiters.values)
                state.waiters.removeAll()
                return waiters
            }
            for waiter in waiters { waiter.resume() }
            return
        }
    }

    /// One connection of its own and a query: a server still starting refuses the login
    /// (`57P03`), one that is back answers. Bounded (``probeLimit``, and the connection's
    /// close: a probe cut in the middle would otherwise wait for ever, and every operation
    /// with it).
    private func reach() async throws {
        let location = self.location
        try await Self.answer(within: Self.probeLimit) { watch in
            let quiet = Logger(label: "trawl.queue.probe", factory: { _ in SwiftLogNoOpLogHandler() })
            let connection = try await PostgresConnection.connect(configuration: try location.connectionConfiguration, id: 0, logger: quiet)
            watch.watch(connection)
            do {
                try await connection.query("SELECT 1", logger: quiet)
            } catch {
                try? await connection.close()
                throw error
            }
            try? await connection.close()
        }
    }

    /// How long a request may stay unanswered once its connection has closed: a request the
    /// connection was running when it closed has failed by then; one still waiting was never
    /// sent (see ``answer(within:_:)``).
    static let closeGrace = Duration.seconds(1)

    /// The longest one probe (a connection and a query) may take.
    static let probeLimit = Duration.seconds(10)

    /// `body`'s answer; ``Stalled`` if none came within `limit` (nil: no limit); ``Closed`` if
    /// the connection `body` named to its ``Watch`` closed and `body` has not ended about
    /// ``closeGrace`` later. Either way `body` is cancelled and left to end on its own: a
    /// request that ignores cancellation is not waited for.
    ///
    /// Why the watch: postgres-nio hands a request to its connection's channel with no way to
    /// hear that the channel is gone. A connection closed (`pg_terminate_backend`, the server
    /// stopping) fails the requests it holds, but one written after the close — a pooled
    /// connection leased in the moment it closed, a request that waited for a thread on a
    /// loaded machine — is dropped by the closed channel, and its answer never comes.
    static func answer<T: Sendable>(within limit: Duration?, _ body: @escaping @Sendable (Watch) async throws -> T) async throws -> T {
        let race = Race<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                race.begin(continuation)
                race.start(
                    work: Task {
                        let result: Result<T, any Error>
                        do { result = .success(try await body(Watch(race: race))) } catch { result = .failure(error) }
                        race.finish(result)
                    },
                    timer: Task {
                        let clock = ContinuousClock()
                        let end = limit.map { clock.now + $0 }
                        // Closed at one look and still unanswered at the next.
                        var closedSeen = false
                        while !Task.isCancelled {
                            if let end, clock.now >= end, let limit {
                                race.finish(.failure(Stalled(limit: limit)))
                                return
                            }
                            let step = end.map { min(closeGrace, clock.now.duration(to: $0)) } ?? closeGrace
                            try? await Task.sleep(for: step)
                            if Task.isCancelled { return }
                            if race.connectionClosed {
                                if closedSeen {
                                    race.finish(.failure(Closed()))
                                    return
                                }
                                closedSeen = true
                            }
                        }
                    })
            }
        } onCancel: {
            // The body is cancelled and waited for (a commit under way is better known than
            // guessed), within the same bounds.
            race.cancelWork()
        }
    }

    /// Lets the body of ``answer(within:_:)`` name the connection it sends its requests on.
    struct Watch: Sendable {
        fileprivate let race: any ConnectionWatching

        /// The requests that follow go to `connection`: if it closes, they are not waited for.
        func watch(_ connection: PostgresConnection) { race.watch(connection) }
    }

    /// The body, the timer and the caller of ``answer(within:_:)``, and which ended it.
    private final class Race<T: Sendable>: ConnectionWatching {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var work: Task<Void, Never>?
            var timer: Task<Void, Never>?
            var ended = false
            /// The caller was cancelled.
            var cancelled = false
            var connection: PostgresConnection?
        }
        private let state = Mutex(State())

        func begin(_ continuation: CheckedContinuation<T, any Error>) {
            state.withLock { $0.continuation = continuation }
        }

        func start(work: Task<Void, Never>, timer: Task<Void, Never>) {
            let (ended, cancelled) = state.withLock { state in
                state.work = work
                state.timer = timer
                return (state.ended, state.cancelled)
            }
            // Either may have ended the race, or the caller been cancelled, before it was recorded here.
            if ended {
                work.cancel()
                timer.cancel()
            } else if cancelled {
                work.cancel()
            }
        }

        func cancelWork() {
            state.withLock { state in
                state.cancelled = true
                return state.work
            }?.cancel()
        }

        func watch(_ connection: PostgresConnection) {
            state.withLock { $0.connection = connection }
        }

        var connectionClosed: Bool { state.withLock { $0.connection?.isClosed ?? false } }

        /// The first call ends the race with `result`; later ones do nothing.
        func finish(_ result: Result<T, any Error>) {
            let ended = state.withLock { state -> (CheckedContinuation<T, any Error>, Task<Void, Never>?, Task<Void, Never>?)? in
                guard !state.ended, let continuation = state.continuation else {
                    state.ended = true
                    return nil
                }
                state.ended = true
                state.continuation = nil
                state.connection = nil
                return (continuation, state.work, state.timer)
            }
            guard let (continuation, work, timer) = ended else { return }
            work?.cancel()
            timer?.cancel()
            continuation.resume(with: result)
        }
    }

    /// An operation went unanswered for ``limit``.
    struct Stalled: Error, CustomStringConvertible {
        var limit: Duration
        var description: String { "no answer within \(limit)" }
    }

    /// An operation's connection closed and its answer never came.
    struct Closed: Error, CustomStringConvertible {
        var description: String { "the connection closed before the answer came" }
    }

    /// What PostgreSQL or the connection throws when the server went away or cut the
    /// connection (`57P01` admin shutdown and `pg_terminate_backend`, `57P02` crash,
    /// `57P03` starting up or shutting down, class `08` connection exceptions), the pool
    /// gave up connecting for now, or the operation went unanswered (``Stalled``, ``Closed``).
    /// A transaction's error counts by the error that ended it.
    static func isConnectionLoss(_ error: any Error) -> Bool {
        if error is Stalled || error is Closed { return true }
        if let transaction = error as? PostgresTransactionError {
            return cause(of: transaction).map(isConnectionLoss) ?? false
        }
        if let psql = error as? PSQLError {
            switch psql.code {
            case .serverClosedConnection, .connectionError, .uncleanShutdown, .clientClosedConnection:
                return true
            case .unexpectedBackendMessage:
                // A termination that lands mid-statement can reach postgres-nio as a message it
                // did not expect there; it closes the connection on it, so it is a loss too.
                return true
            case .server:
                guard let state = psql.serverInfo?[.sqlState] else { return false }
                return state.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300"].contains(state)
            default:
                return false
            }
        }
        // The pool's circuit breaker (no connection for a while): its error type is in a
        // module this target does not import, so it is known by its description.
        return "\(error)".contains("connectionCreationCircuitBreakerTripped")
    }
}

/// What ``QueueLink/Watch`` reaches: the race it names the connection to.
private protocol ConnectionWatching: Sendable {
    func watch(_ connection: PostgresConnection)
}

extension QueueLink {
    /// The error that ended a transaction: `BEGIN`'s, the body's or `COMMIT`'s (a failed
    /// rollback after the body's error says nothing more about it).
    static func cause(of transaction: PostgresTransactionError) -> (any Error)? {
        transaction.beginError ?? transaction.closureError ?? transaction.commitError
    }
}

extension QueueStore {
    /// How often a store lost its server and how many times it probed for it.
    public struct Outages: Sendable, Hashable {
        /// Outages: from a lost connection to the next operation that succeeded.
        public var count = 0
        /// Connections the probe tried during them (one at a time, with backoff).
        public var attempts = 0

        public init(count: Int = 0, attempts: Int = 0) {
            self.count = count
            self.attempts = attempts
        }
    }
}
