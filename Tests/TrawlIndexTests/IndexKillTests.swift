import Foundation
import GRDB
import Testing
import TrawlTesting

@testable import TrawlIndex

/// A process writing the index is killed (SIGKILL) mid-stream: what it queued is applied by the
/// next writer, no page is half-replaced, nothing is applied twice.
@Suite("Local index under kill -9", .timeLimit(.minutes(5)), .tags(.process))
struct IndexKillTests {
    @Test("A killed writer leaves every page whole and its queue for the next writer")
    func killedWriter() async throws {
        let writerProcess = try #require(CommandRun.builtExecutable("trawl-test-process"), "trawl-test-process is built beside the tests")
        let path = temporaryIndexPath()
        defer { try? FileManager.default.removeItem(at: URL(fileURLWithPath: path).deletingLastPathComponent()) }
        let process = Process()
        process.executableURL = writerProcess
        // It writes until killed: always still writing when killed, however slowly this test is
        // scheduled.
        process.arguments = ["write-index", path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let exited = process.watchExit()
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Kill it once it says it has written a good part (the file and its WAL past 4 MB),
        // mid-flush as likely as not.
        _ = try await OutputLines(output).first(for: "the writer has written 4 MB") { $0 == "written" }
        #expect(process.isRunning, "the writer finished before it could be killed")
        kill(process.processIdentifier, SIGKILL)
        try await exited.wait(for: "the writer to die of SIGKILL", within: .seconds(60))
        #expect(process.terminationReason == .uncaughtSignal)

        let index = try MediaIndex(path: path)
        #expect(index.warnings.isEmpty)
        let waiting = try await index.pendingCount()
        let writer = IndexWriter(index: index)
        #expect(await writer.close().isEmpty)
        #expect(try await index.pendingCount() == 0)
        let stats = try await index.stats()
        #expect(stats.pages > 0)
        // Four media per page, every page: no page half-applied, none applied twice.
        #expect(stats.media == stats.pages * 4, "\(stats.media) media on \(stats.pages) pages (\(waiting) were queued)")
        let uneven = try await index.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM page p WHERE (SELECT count(*) FROM media m WHERE m.pageID = p.id) != 4")
        }
        #expect(uneven == 0)
        #expect(try await index.checkIntegrity())
        #expect(try await index.search("site:giphy").total > 0)
    }
}
