import Foundation
import Glibc
import Logging
import Testing
import TrawlCore
import TrawlQueue
import TrawlTesting

@Suite("Queue errors", .timeLimit(.minutes(5)))
struct QueueErrorTests {
    static let secret = "SEKRET0123456789"

    @Test("A queue URL that is not postgres:// fails with queue-invalid-url, its password never shown")
    func invalidLocation() {
        for text in [
            "mysql://me:\(Self.secret)@db/x", "postgres://me:\(Self.secret)@db/x?sslmode=sometimes",
            "postgres://me:\(Self.secret)@db/x?sslrootcert=/etc/hostname", "postgres://me:\(Self.secret)@db/x?sslmode=verify-full&sslrootcert=/no/such/ca.pem",
            "postgres:///x", "not a url",
        ] {
            do {
                _ = try QueueLocation(text)
                Issue.record("\(text) was accepted")
            } catch {
                #expect((error as? any CodedError)?.errorCode == "queue-invalid-url")
                #expect(!ErrorSentence.describe(error).contains(Self.secret), "\(ErrorSentence.describe(error))")
                #expect(!"\(error)".contains(Self.secret))
            }
        }
        let location = try? QueueLocation("postgres://me:\(Self.secret)@db.internal:6543/crawl")
        #expect(location?.port == 6543)
        #expect(location?.database == "crawl")
        #expect(location?.description.contains(Self.secret) == false)
    }

    @Test("A server that is not there, or a database that does not exist, fails at once with queue-unreachable", .tags(.postgres))
    func unreachable() async throws {
        let cluster = try await PostgresCluster.shared()
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let closed = refusing.port
        for text in ["postgres://me:\(Self.secret)@127.0.0.1:\(closed)/x", "postgres://postgres@127.0.0.1:\(cluster.port)/no_such_database"] {
            let location = try QueueLocation(text)
            do {
                try await QueueStore.withStore(location, logger: Logger(label: "test")) { _ in }
                Issue.record("\(text) was reached")
            } catch {
                #expect((error as? any CodedError)?.errorCode == "queue-unreachable")
                #expect(ErrorSentence.describe(error).contains("127.0.0.1"), "\(ErrorSentence.describe(error))")
                #expect(!ErrorSentence.describe(error).contains(Self.secret))
            }
        }
    }
}
