import Foundation
import Logging
import Testing
import TrawlCore
import TrawlQueue
import TrawlStore
import TrawlTesting

/// The queue over TLS, against a throwaway cluster that serves TLS only (a self-signed
/// certificate made by `openssl` now; connections without TLS are rejected).
@Suite("Queue over TLS", .timeLimit(.minutes(5)), .tags(.postgres))
struct TLSTests {
    @Test("sslmode=require and verify-full (with the server's certificate as sslrootcert) connect, and the queue works over TLS")
    func connects() async throws {
        let cluster = try await PostgresCluster.started(tls: true)
        defer { cluster.stop() }
        let certificate = try #require(cluster.certificate)
        let url = try await cluster.createDatabase()
        for parameters in ["sslmode=require", "sslmode=verify-ca&sslrootcert=\(certificate.path)", "sslmode=verify-full&sslrootcert=\(certificate.path)"] {
            let location = try QueueLocation("\(url)?\(parameters)")
            #expect(location.description.contains(parameters.components(separatedBy: "&")[0]), "\(location)")
            let (migrations, pushed, encrypted) = try await QueueStore.withStore(location, logger: Logger(label: "test")) { store in
                let url = "http://a.test/\(parameters)"
                let counts = try await store.addCounting(
                    [NewJob(key: url, input: url, url: url, host: "a.test")], source: parameters, linesRead: 1, complete: true,
                    now: Date().timeIntervalSince1970)
                return (try await store.appliedMigrations(), counts.added, try await store.usesTLS())
            }
            #expect(migrations.contains("v1-jobs"))
            #expect(pushed == 1)
            #expect(encrypted, "pg_stat_ssl says the connection is encrypted")
        }
        let jobs = try await cluster.psql("SELECT COUNT(*) FROM trawl_job", database: String(url.split(separator: "/").last!))
        #expect(jobs.trimmingCharacters(in: .whitespacesAndNewlines) == "3")
    }

    @Test("Without TLS, or with a certificate signed by another root, the queue is unreachable (queue-unreachable, saying why)")
    func refused() async throws {
        let cluster = try await PostgresCluster.started(tls: true)
        defer { cluster.stop() }
        let url = try await cluster.createDatabase()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let stranger = try PostgresCluster.makeSelfSignedCertificate(in: folder, name: "stranger").certificate
        for text in [url, "\(url)?sslmode=disable", "\(url)?sslmode=verify-full&sslrootcert=\(stranger.path)"] {
            do {
                try await QueueStore.withStore(try QueueLocation(text), logger: Logger(label: "test")) { _ in }
                Issue.record("\(text) was reached")
            } catch {
                #expect((error as? any CodedError)?.errorCode == "queue-unreachable", "\(error)")
                #expect(ErrorSentence.describe(error).contains("127.0.0.1"), "\(ErrorSentence.describe(error))")
            }
        }
    }
}
