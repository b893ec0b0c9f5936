import Foundation
import GRDB
import Testing
import TrawlStore

/// The job store on a real SQLite file.
@Suite("Job store")
struct JobStoreTests {
    func temporaryStore() throws -> (JobStore, String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-store-\(UUID().uuidString).sqlite").path
        return (try JobStore(path: path), path)
    }

    func job(_ url: String, host: String = "a.test") -> NewJob {
        NewJob(key: url, input: url, url: url, host: host)
    }

    @Test("Duplicates coalesce onto one job and intake records how far it read")
    func coalescing() throws {
        let (store, _) = try temporaryStore()
        let added = try store.add(
            [job("https://a.test/1"), job("https://a.test/2"), job("https://a.test/1")], source: "list", linesRead: 3, complete: false, now: 1)
        #expect(added == 2)
        #expect(try store.job(key: "https://a.test/1")?.duplicates == 1)
        #expect(try store.intake(of: "list") == IntakeMark(linesRead: 3, complete: false))
        try store.add([job("https://a.test/3")], source: "list", linesRead: 4, complete: true, now: 2)
        #expect(try store.intake(of: "list") == IntakeMark(linesRead: 4, complete: true))
        #expect(try store.progress()[.pending] == 3)
    }

    @Test("Another program's SQLite file is refused, named, and left as it was")
    func aForeignDatabaseIsNeverAdopted() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-foreign-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let foreign = try DatabaseQueue(path: path)
        try foreign.write { db in try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('keep me')") }
        try foreign.close()
        #expect {
            try JobStore(path: path)
        } throws: { error in
            guard let error = error as? StoreError, error.code == .openFailed else { return false }
            return error.description.contains(path) && error.description.contains("not a Trawl job store") && error.description.contains("notes")
        }
        let after = try DatabaseQueue(path: path)
        let tables = try after.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") }
        #expect(tables == ["notes"])
        #expect(try after.read { db in try Int32.fetchOne(db, sql: "PRAGMA application_id") } == 0)
    }

    @Test("A corrupted store names its file and the next step, not the SQL it ran")
    func aCorruptedStoreSaysWhatToDo() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-corrupt-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: URL(fileURLWithPath: path))
        #expect {
            try JobStore(path: path)
        } throws: { error in
            guard let error = error as? StoreError, error.code == .openFailed else { return false }
            let text = error.description
            return text.contains(path) && text.contains("--store another file") && !text.contains("PRAGMA") && !text.contains("executing")
        }
    }

    @Test("A store is marked as one, and opens again")
    func aStoreIsMarked() throws {
        let (store, path) = try temporaryStore()
        try store.add([job("https://a.test/1")], source: "list", linesRead: 1, complete: true, now: 1)
        let queue = try DatabaseQueue(path: path)
        #expect(try queue.read { db in try Int32.fetchOne(db, sql: "PRAGMA application_id") } == 0x5472_774A)
        try queue.close()
        #expect(try JobStore(path: path).progress()[.pending] == 1)
    }

    @Test("A rejected line is failed at once with its result, and only once")
    func rejection() throws {
        let (store, _) = try temporaryStore()
        let rejected = NewJob(
            key: "line:list:1", input: "nope", url: nil, host: nil, rejection: JobResult(line: #"{"input":"nope"}"#, errorCode: "invalid-url"))
        try store.add([rejected], source: "list", linesRead: 1, complete: false, now: 1)
        try store.add([rejected], source: "list", linesRead: 1, complete: true, now: 1)
        #expect(try store.results(after: 0, limit: 10).map(\.line) == [#"{"input":"nope"}"#])
        #expect(try store.progress()[.failed] == 1)
    }

    @Test("Claims take due jobs per host up to the limit, count the attempt and report exhausted hosts")
    func claiming() throws {
        let (store, _) = try temporaryStore()
        try store.add(
            (1...5).map { job("https://a.test/\($0)") } + [job("https://b.test/1", host: "b.test")], source: "list", linesRead: 6, complete: true, now: 1)
        let claim = try store.claim([("a.test", 2), ("b.test", 3)], now: 10)
        #expect(claim.jobs.map(\.key) == ["https://a.test/1", "https://a.test/2", "https://b.test/1"])
        #expect(claim.jobs.allSatisfy { $0.attempts == 1 })
        #expect(claim.exhausted.keys.sorted() == ["b.test"])
        #expect(claim.exhausted["b.test"] == .some(nil))
        #expect(try store.progress()[.running] == 3)

        // A retry-later job is not due before its time, and the exhausted host says when it is.
        try store.finish(claim.jobs[2].id, host: "b.test", outcome: .retryLater(at: 100, error: "HTTP 503"), now: 11)
        let early = try store.claim([("b.test", 1)], now: 50)
        #expect(early.jobs.isEmpty)
        #expect(early.exhausted["b.test"] == .some(100))
        let later = try store.claim([("b.test", 1)], now: 100)
        #expect(later.jobs.map(\.attempts) == [2])
        #expect(later.jobs.first?.state == .retryLater)
        #expect(later.jobs.first?.lastError == "HTTP 503")
    }

    @Test("Finishing commits the state and the result together, numbered in order")
    func finishing() throws {
        let (store, _) = try temporaryStore()
        try store.add([job("https://a.test/1"), job("https://a.test/2")], source: "list", linesRead: 2, complete: true, now: 1)
        let jobs = try store.claim([("a.test", 2)], now: 1).jobs
        try store.finish(jobs[1].id, host: "a.test", outcome: .done(JobResult(line: "second", httpStatus: 200, mediaCount: 3, latencyMilliseconds: 40)), now: 2)
        try store.finish(
            jobs[0].id, host: "a.test", outcome: .failed(JobResult(line: "first", httpStatus: 404, latencyMilliseconds: 10, errorCode: "http-404")), now: 3)
        let results = try store.results(after: 0, limit: 10)
        #expect(results.map(\.line) == ["second", "first"])
        #expect(try store.results(after: results[0].seq, limit: 10).map(\.line) == ["first"])
        let summary = try store.summary()
        #expect(summary.progress[.done] == 1 && summary.progress[.failed] == 1)
        #expect(summary.progress.mediaFound == 3)
        #expect(summary.byStatus.map(\.status).sorted() == ["200", "404"])
        #expect(summary.latencyP50 == 10 && summary.latencyP95 == 40)
    }

    @Test("Jobs a dead run left running go back to pending; reopening keeps everything")
    func recovery() throws {
        let (store, path) = try temporaryStore()
        try store.add([job("https://a.test/1")], source: "list", linesRead: 1, complete: true, now: 1)
        _ = try store.claim([("a.test", 1)], now: 1)
        let reopened = try JobStore(path: path)
        #expect(try reopened.progress()[.running] == 1)
        #expect(try reopened.recoverAbandoned(now: 2) == 1)
        let again = try reopened.claim([("a.test", 1)], now: 3).jobs
        #expect(again.map(\.attempts) == [2])
    }

    @Test("Output marks are kept per output file")
    func outputMarks() throws {
        let (store, _) = try temporaryStore()
        #expect(try store.outputMark(for: "/tmp/a.jsonl") == OutputMark(seq: 0, bytes: 0))
        try store.setOutputMark(OutputMark(seq: 4, bytes: 120), for: "/tmp/a.jsonl")
        #expect(try store.outputMark(for: "/tmp/a.jsonl") == OutputMark(seq: 4, bytes: 120))
        #expect(try store.outputMark(for: "/tmp/b.jsonl") == OutputMark(seq: 0, bytes: 0))
    }

    @Test("Only one run holds a store's lock; it is free again once released")
    func runLock() throws {
        let (_, path) = try temporaryStore()
        var first: RunLock? = try RunLock(storePath: path)
        #expect(throws: StoreError.self) { try RunLock(storePath: path) }
        #expect(first != nil)
        first = nil
        _ = try RunLock(storePath: path)
    }

    @Test("A file that is not SQLite is an error naming it")
    func notADatabase() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-junk-\(UUID().uuidString).sqlite").path
        try Data("this is not a database, not even close".utf8).write(to: URL(fileURLWithPath: path))
        #expect { try JobStore(path: path) } throws: { error in
            (error as? StoreError)?.description.contains(path) == true
        }
    }
}
