import Foundation
import Glibc
import Logging
import Testing
import TrawlCore
import TrawlQueue
import TrawlTesting

@Suite("Queue errors")
struct QueueErrorTests {
    static let secret = "SEKRET0123456789"

    @Test("A queue URL that is not postgres:// fails with queue-invalid-url, its password never shown")
    func invalidLocation() {
        for text in ["mysql://me:\(Self.secret)@db/x", "postgres://me:\(Self.secret)@db/x?sslmode=sometimes", "postgres://me:\(Self.secret)@db/x?sslrootcert=/etc/hostname", "postgres://me:\(Self.secret)@db/x?sslmode=verify-full&sslrootcert=/no/such/ca.pem", "postgres:///x", "not a url"] {
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

    @Test("A server that is not there, or a database that does not exist, fails at once with queue-unreachable")
    func unreachable() async throws {
        let cluster = try PostgresCluster.shared()
        let closed = try Self.unusedPort()
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

    /// A loopback port nobody listens on (the kernel's pick, closed again).
    static func unusedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
