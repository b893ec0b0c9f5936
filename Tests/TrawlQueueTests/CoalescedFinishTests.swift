import Foundation
import Testing
import TrawlBatch
import TrawlCore
import TrawlStore
import TrawlTesting

@testable import TrawlQueue
@testable import TrawlQueueWorker

/// Finished attempts coalesced by a worker's committer into one statement, on a real PostgreSQL.
@Suite("Queue coalesced finishes", .timeLimit(.minutes(5)), .tags(.postgres))
struct CoalescedFinishTests {
    static let rules = ClaimRules(perHost: 8, delay: 0)

    static func done(_ job: Job) -> QueueFinish {
        let line = BatchResultLine(input: job.input, url: job.url, status: "done", media: [], attempts: job.attempts).encoded()
        return QueueFinish(jobID: job.id, attempt: job.attempts, outcome: .done(JobResult(line: line, httpStatus: 200)), holdUntil: nil)
    }

    /// A committer whose written groups come back through a stream.
    static func committer(_ store: QueueStore, group: Int) -> (QueueCommitter, AsyncStream<QueueCommitter.Written>) {
        let (written, sink) = AsyncStream.makeStream(of: QueueCommitter.Written.self)
        // An hour's delay: only the group being full, or a flush, can write it.
        let committer = QueueCommitter(
            store: store, owner: "w", rules: rules, group: group, delay: .seconds(3600), now: { Date().timeIntervalSince1970 },
            deliver: { sink.yield($0) })
        return (committer, written)
    }

    /// The next group written: each outcome's job input and verdict.
    static func nextGroup(_ written: AsyncStream<QueueCommitter.Written>) async throws -> [String: Bool] {
        var iterator = written.makeAsyncIterator()
        switch await iterator.next() {
        case .committed(let finished, _): return Dictionary(uniqueKeysWithValues: finished.map { ($0.job.input, $0.kept) })
        case .failed(_, let error): throw error
        case nil: return [:]
        }
    }

    @Test("A full group is written at once, without waiting for its delay, in one transaction")
    func fullGroupCommitsTogether() async throws {
        let fixture = try await QueueFixture(hosts: ["a.test"]) { request in QueueFixture.page(request.path) }
        defer { fixture.server.shutdown() }
        try fixture.writeList((1...8).map { "http://a.test/g/\($0)" })
        let configuration = fixture.configuration(concurrency: 8, perHost: 8)
        let database = String(fixture.url.split(separator: "/").last!)
        let kept = try await fixture.withStore { store in
            try await fixture.push(store, configuration: configuration)
            let now = Date().timeIntervalSince1970
            let jobs = try await store.claim(limit: 8, owner: "w", rules: Self.rules, now: now, leaseUntil: now + 600)
            #expect(jobs.count == 8)
            let hostVersion = try await fixture.cluster.psql("SELECT xmin::text FROM trawl_host", database: database)
            let (committer, written) = Self.committer(store, group: 8)
            for job in jobs { await committer.submit(Self.done(job), of: job) }
            let kept = try await Self.nextGroup(written)
            // The finish gave the slots back in its own row and left the host row alone:
            // no host row is held while a finish waits for the disk.
            #expect(try await fixture.cluster.psql("SELECT xmin::text FROM trawl_host", database: database) == hostVersion)
            #expect(
                try await fixture.cluster.psql("SELECT owner || ' ' || n FROM trawl_host_returned", database: database)
                    .trimmingCharacters(in: .whitespacesAndNewlines) == "w 8")
            return kept
        }
        #expect(kept == Dictionary(uniqueKeysWithValues: (1...8).map { ("http://a.test/g/\($0)", true) }), "the 8 outcomes handed back together")
        let written = try await fixture.cluster.psql("SELECT COUNT(*) || ' ' || COUNT(DISTINCT xmin::text) FROM trawl_result", database: database)
        #expect(written.trimmingCharacters(in: .whitespacesAndNewlines) == "8 1", "8 results written by one transaction")
        let hosts = try await fixture.cluster.psql(
            "SELECT h.in_flight - COALESCE((SELECT SUM(r.n) FROM trawl_host_returned r WHERE r.host = h.name), 0) FROM trawl_host h", database: database)
        #expect(hosts.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    @Test("A drain writes what waits at once, without waiting for its delay, and returns once it is committed")
    func drainWritesWhatWaits() async throws {
        let fixture = try await QueueFixture(hosts: ["a.test"]) { request in QueueFixture.page(request.path) }
        defer { fixture.server.shutdown() }
        try fixture.writeList(["http://a.test/d/1", "http://a.test/d/2"])
        let configuration = fixture.configuration(concurrency: 2, perHost: 2)
        let database = String(fixture.url.split(separator: "/").last!)
        let (waiting, group) = try await fixture.withStore { store in
            try await fixture.push(store, configuration: configuration)
            let now = Date().timeIntervalSince1970
            let jobs = try await store.claim(limit: 2, owner: "w", rules: Self.rules, now: now, leaseUntil: now + 600)
            #expect(jobs.count == 2)
            let (committer, written) = Self.committer(store, group: 10)
            for job in jobs { await committer.submit(Self.done(job), of: job) }
            await committer.drain()
            let waiting = await committer.waitingCount
            // (Read only once written: a group still waiting would never come.)
            return (waiting, waiting == 0 ? try await Self.nextGroup(written) : [:])
        }
        #expect(waiting == 0)
        #expect(group == ["http://a.test/d/1": true, "http://a.test/d/2": true])
        let written = try await fixture.cluster.psql("SELECT COUNT(*) FROM trawl_result", database: database)
        #expect(written.trimmingCharacters(in: .whitespacesAndNewlines) == "2")
    }

    @Test("A lease that expires while its finish waits in the coalescer: that result is discarded, the other of its group kept, the job worked again")
    func leaseExpiresWhileWaiting() async throws {
        let fixture = try await QueueFixture(hosts: ["a.test"]) { request in QueueFixture.page(request.path) }
        defer { fixture.server.shutdown() }
        try fixture.writeList(["http://a.test/short", "http://a.test/long"])
        let configuration = fixture.configuration(concurrency: 2, perHost: 2)
        let (firstVerdict, secondVerdict, again) = try await fixture.withStore { store in
            try await fixture.push(store, configuration: configuration)
            let now = Date().timeIntervalSince1970
            // Two claims of one job each: the first lease is short, the second long.
            let short = try #require(try await store.claim(limit: 1, owner: "w", rules: Self.rules, now: now, leaseUntil: now + 1).first)
            let long = try #require(try await store.claim(limit: 1, owner: "w", rules: Self.rules, now: now + 0.001, leaseUntil: now + 600).first)
            let (committer, written) = Self.committer(store, group: 10)
            await committer.submit(Self.done(short), of: short)
            try await waitUntil("the first outcome to wait in the committer") { await committer.waitingCount == 1 }
            // While the first outcome waits, its lease runs out and the reaper returns the job.
            #expect(try await store.reap(now: now + 10) == 1)
            await committer.submit(Self.done(long), of: long)
            try await waitUntil("both outcomes to wait in the committer") { await committer.waitingCount == 2 }
            await committer.flush()
            let group = try await Self.nextGroup(written)
            let verdicts = (group[short.input], group[long.input])
            // The returned job is claimed again (by another worker) and finished.
            let later = now + 20
            let reclaimed = try await store.claim(limit: 2, owner: "v", rules: Self.rules, now: later, leaseUntil: later + 600)
            let discarded = try await store.finish(reclaimed.map(Self.done), owner: "v", rules: Self.rules, now: later)
            #expect(discarded.isEmpty)
            return (verdicts.0, verdicts.1, reclaimed)
        }
        #expect(firstVerdict == false, "the expired lease's result is discarded")
        #expect(secondVerdict == true)
        #expect(again.map(\.input) == ["http://a.test/short"])
        #expect(again.first?.attempts == 2)
        try await fixture.withStore { store in try await fixture.writeOutput(store) }
        let results = try fixture.results()
        #expect(results.map(\.input).sorted() == ["http://a.test/long", "http://a.test/short"])
        #expect(results.first { $0.input.hasSuffix("/short") }?.attempts == 2, "the result written is the second lease's")
        let database = String(fixture.url.split(separator: "/").last!)
        let workers = try await fixture.cluster.psql("SELECT worker FROM trawl_result ORDER BY job_id", database: database)
        #expect(workers.split(separator: "\n") == ["v", "w"])
    }
}
