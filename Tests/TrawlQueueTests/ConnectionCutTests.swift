import Foundation
import Logging
import PostgresNIO
import Testing
import TrawlTesting

@testable import TrawlQueue

/// Requests on a connection that `pg_terminate_backend` cut: each ends, with an error taken
/// for a lost connection, within a bounded time of the cut.
@Suite("Queue requests on a cut connection", .timeLimit(.minutes(2)), .tags(.postgres))
struct ConnectionCutTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A database of the shared cluster, its connections named `name` in `pg_stat_activity`.
    static func location(_ name: String) async throws -> (PostgresCluster, QueueLocation) {
        let cluster = try await PostgresCluster.shared()
        return (cluster, try QueueLocation(try await cluster.createDatabase() + "?application_name=\(name)"))
    }

    @Test("A request written after its connection was cut is never answered; watched, it ends as a lost connection")
    func requestAfterTheCut() async throws {
        let name = "cut-\(UInt32.random(in: 0...UInt32.max))"
        let (cluster, location) = try await Self.location(name)
        let connection = try await PostgresConnection.connect(configuration: location.connectionConfiguration, id: 1, logger: Self.quiet)
        try await connection.query("SELECT 1", logger: Self.quiet)
        #expect(try await cluster.terminateConnections(application: name) == 1)
        try? await connection.closeFuture.get()

        // postgres-nio drops a request written to a closed connection: no answer, no error.
        // (If this starts failing, postgres-nio fails such requests now and the watch is a
        // second line of defence.)
        let unwatched = await Self.outcome {
            try await QueueLink.answer(within: .seconds(2)) { _ in try await connection.query("SELECT 1", logger: Self.quiet) }
        }
        #expect(unwatched is QueueLink.Stalled, "\(String(describing: unwatched))")

        // Watched, the same request ends soon after the close, long before its stall limit.
        let watched = await Self.outcome {
            try await QueueLink.answer(within: .seconds(90)) { watch in
                watch.watch(connection)
                return try await connection.query("SELECT 1", logger: Self.quiet)
            }
        }
        #expect(watched is QueueLink.Closed, "\(String(describing: watched))")
        #expect(watched.map(QueueLink.isConnectionLoss) == true)
    }

    @Test("A reconnecting store's transaction whose connection is cut in the middle is tried again and goes through")
    func transactionCut() async throws {
        let name = "cut-\(UInt32.random(in: 0...UInt32.max))"
        let (_, location) = try await Self.location(name)
        try await QueueStore.withStore(location, logger: Self.quiet, connections: 2) { store in
            let tries = Shared(0)
            let value = try await store.reconnecting(stallLimit: .seconds(90)).run("cut a transaction") { connection in
                try await connection.withTransaction(logger: Self.quiet) { connection in
                    if tries.withLock({
                        $0 += 1; return $0
                    }) == 1 {
                        // The backend ends itself: the transaction fails with 57P01, wrapped
                        // in postgres-nio's transaction error.
                        try await connection.query("SELECT pg_terminate_backend(pg_backend_pid())", logger: Self.quiet)
                    }
                    return 7
                }
            }
            #expect(value == 7)
            #expect(tries.withLock { $0 } == 2)
            #expect(store.outages.count == 1)
        }
    }

    /// The error `body` threw (nil if it returned).
    static func outcome(_ body: () async throws -> some Sendable) async -> (any Error)? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }
}
