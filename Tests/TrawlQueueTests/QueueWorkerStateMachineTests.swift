import Testing
import TrawlStore

@testable import TrawlQueue
@testable import TrawlQueueWorker

/// A worker's run without PostgreSQL: ``QueueWorkerStateMachine`` fed events at made-up times.
/// Each row starts a machine, then gives it events in turn; after each event the machine is
/// asked what to do until it waits, exits or needs an answer, and those actions are compared.
@Suite struct QueueWorkerStateMachineTests {
    typealias Action = QueueWorkerStateMachine.Action

    /// What happens to a worker, as the driver tells its machine.
    enum Event: Sendable, CustomStringConvertible {
        /// The run begins (no event: the first question).
        case begin
        case claimed([Int64], at: Double)
        case ended
        case abandoned
        case committed(kept: Bool, final: Bool)
        case tookOver([Int64])
        case woke
        case looked(unfinished: Bool)
        case due(Double?)

        var description: String {
            switch self {
            case .begin: "begin"
            case .claimed(let ids, let at): "claimed \(ids) at \(at)"
            case .ended: "ended"
            case .abandoned: "abandoned"
            case .committed(let kept, let final): "committed kept=\(kept) final=\(final)"
            case .tookOver(let ids): "took over \(ids)"
            case .woke: "woke"
            case .looked(let unfinished): "looked unfinished=\(unfinished)"
            case .due(let at): "due \(at.map { "\($0)" } ?? "never")"
            }
        }
    }

    /// One event at `now` with `free` room in the leases, and the actions that follow it.
    struct Beat: Sendable {
        var event: Event
        var now: Double
        var free: Int
        var then: [Action]
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var concurrency = 4
        var claimGroup = 1
        var exitWhenEmpty = false
        var beats: [Beat]
        var testDescription: String { name }
    }

    static func job(_ id: Int64) -> Job {
        Job(
            id: id, key: "k\(id)", input: "http://h.test/\(id)", url: "http://h.test/\(id)", host: "h.test", state: .pending,
            attempts: 1, lastError: nil, nextAttemptAt: 0, duplicates: 0)
    }

    static func start(_ ids: Int64...) -> [Action] { ids.map { .start(job($0)) } }

    static func beat(_ event: Event, at now: Double, free: Int, _ then: [Action]) -> Beat {
        Beat(event: event, now: now, free: free, then: then)
    }

    static let rows: [Row] = [
        Row(
            name: "An idle worker claims, starts what it got, and waits",
            beats: [
                beat(.begin, at: 0, free: 4, [.claim]),
                beat(.claimed([1, 2], at: 0), at: 0, free: 2, start(1, 2) + [.claim]),
                beat(.claimed([], at: 0.01), at: 0.01, free: 2, [.wait]),
            ]),
        Row(
            name: "Slots limit the attempts in flight; held jobs start as slots free", concurrency: 2, claimGroup: 2,
            beats: [
                beat(.begin, at: 0, free: 4, [.claim]),
                beat(.claimed([1, 2, 3, 4], at: 0), at: 0, free: 0, start(1, 2) + [.wait]),
                beat(.ended, at: 1, free: 0, start(3) + [.wait]),
                beat(.abandoned, at: 1, free: 1, start(4) + [.wait]),
                beat(.ended, at: 2, free: 1, [.wait]),
            ]),
        Row(
            name: "A claim that filled its group and left room for another claims again at once", concurrency: 8, claimGroup: 2,
            beats: [
                beat(.begin, at: 0, free: 8, [.claim]),
                beat(.claimed([1, 2], at: 0), at: 0, free: 6, start(1, 2) + [.claim]),
                beat(.claimed([3], at: 0), at: 0, free: 5, start(3) + [.claim]),
                beat(.claimed([], at: 0), at: 0, free: 5, [.wait]),
            ]),
        Row(
            name: "Below a claim group, a busy worker waits; an idle one claims whatever room it has", concurrency: 8, claimGroup: 4,
            beats: [
                beat(.begin, at: 0, free: 3, [.claim]),
                beat(.claimed([1], at: 0), at: 0, free: 2, start(1) + [.wait]),
                beat(.ended, at: 1, free: 2, [.wait]),
                beat(.committed(kept: true, final: true), at: 1, free: 3, [.claim]),
            ]),
        Row(
            name: "After an empty claim, the next waits a tenth of a second or a wake-up", concurrency: 4, claimGroup: 1,
            beats: [
                beat(.begin, at: 0, free: 4, [.claim]),
                beat(.claimed([1], at: 0), at: 0, free: 3, start(1) + [.claim]),
                beat(.claimed([], at: 0), at: 0, free: 3, [.wait]),
                beat(.ended, at: 0.05, free: 3, [.wait]),
                beat(.tookOver([]), at: 0.09, free: 3, [.wait]),
                beat(.committed(kept: true, final: true), at: 0.1, free: 4, [.claim]),
                beat(.claimed([], at: 0.1), at: 0.1, free: 4, [.idle]),
                beat(.due(nil), at: 0.1, free: 4, [.wait]),
                beat(.woke, at: 0.11, free: 4, [.claim]),
            ]),
        Row(
            name: "An idle worker sets a timer for the next due time, not sooner than 50 ms, never a later one",
            beats: [
                beat(.begin, at: 0, free: 4, [.claim]),
                beat(.claimed([], at: 0), at: 0, free: 4, [.idle]),
                beat(.due(5), at: 0, free: 4, [.setTimer(at: 5), .wait]),
                beat(.woke, at: 1, free: 4, [.claim]),
                beat(.claimed([], at: 1), at: 1, free: 4, [.idle]),
                beat(.due(5), at: 1, free: 4, [.wait]),
                beat(.woke, at: 2, free: 4, [.claim]),
                beat(.claimed([], at: 2), at: 2, free: 4, [.idle]),
                beat(.due(2), at: 2, free: 4, [.setTimer(at: 2.05), .wait]),
                beat(.woke, at: 2.05, free: 4, [.claim]),
                beat(.claimed([], at: 2.05), at: 2.05, free: 4, [.idle]),
                beat(.due(5), at: 2.05, free: 4, [.setTimer(at: 5), .wait]),
            ]),
        Row(
            name: "A worker with an outcome committing is not idle",
            beats: [
                beat(.begin, at: 0, free: 4, [.claim]),
                beat(.claimed([1], at: 0), at: 0, free: 3, start(1) + [.claim]),
                beat(.claimed([], at: 0), at: 0, free: 3, [.wait]),
                beat(.ended, at: 1, free: 3, [.claim]),
                beat(.claimed([], at: 1), at: 1, free: 3, [.wait]),
                beat(.committed(kept: true, final: false), at: 1.2, free: 4, [.claim]),
                beat(.claimed([], at: 1.2), at: 1.2, free: 4, [.idle]),
            ]),
        Row(
            name: "Jobs a commit took over start in the slots it freed, without a claim", concurrency: 2, claimGroup: 2,
            beats: [
                beat(.begin, at: 0, free: 2, [.claim]),
                beat(.claimed([1, 2], at: 0), at: 0, free: 0, start(1, 2) + [.wait]),
                beat(.ended, at: 1, free: 0, [.wait]),
                beat(.tookOver([3]), at: 1, free: 0, start(3) + [.wait]),
                beat(.committed(kept: true, final: true), at: 1, free: 0, [.wait]),
            ]),
        Row(
            name: "Told to exit when empty, an idle worker looks for work and exits when there is none", exitWhenEmpty: true,
            beats: [
                beat(.begin, at: 0, free: 4, [.claim]),
                beat(.claimed([], at: 0), at: 0, free: 4, [.lookForWork]),
                beat(.looked(unfinished: true), at: 0, free: 4, [.idle]),
                beat(.due(nil), at: 0, free: 4, [.wait]),
                beat(.woke, at: 3, free: 4, [.claim]),
                beat(.claimed([], at: 3), at: 3, free: 4, [.lookForWork]),
                beat(.looked(unfinished: false), at: 3, free: 4, [.exit]),
            ]),
        Row(
            name: "A worker that exits when empty goes on while an attempt of its own runs", exitWhenEmpty: true,
            beats: [
                beat(.begin, at: 0, free: 4, [.claim]),
                beat(.claimed([1], at: 0), at: 0, free: 3, start(1) + [.claim]),
                beat(.claimed([], at: 0), at: 0, free: 3, [.wait]),
                beat(.ended, at: 0.5, free: 3, [.claim]),
                beat(.claimed([], at: 0.5), at: 0.5, free: 3, [.wait]),
                // Idle now, its last claim empty: it looks (a claim would wait for a tenth of a second).
                beat(.committed(kept: true, final: true), at: 0.5, free: 4, [.lookForWork]),
                beat(.looked(unfinished: false), at: 0.5, free: 4, [.exit]),
            ]),
    ]

    @Test(arguments: rows)
    func run(_ row: Row) {
        var machine = QueueWorkerStateMachine(concurrency: row.concurrency, claimGroup: row.claimGroup, exitWhenEmpty: row.exitWhenEmpty)
        for (index, beat) in row.beats.enumerated() {
            Self.apply(beat.event, at: beat.now, to: &machine)
            var actions: [Action] = []
            while actions.count < 20 {
                let action = machine.next(now: beat.now, free: beat.free)
                actions.append(action)
                if case .start = action { continue }
                if case .setTimer = action { continue }
                break
            }
            #expect(actions == beat.then, "beat \(index): \(beat.event)")
        }
    }

    static func apply(_ event: Event, at now: Double, to machine: inout QueueWorkerStateMachine) {
        switch event {
        case .begin: break
        case .claimed(let ids, let at): machine.claimed(ids.map(job), at: at)
        case .ended: machine.attemptEnded()
        case .abandoned: machine.attemptAbandoned()
        case .committed(let kept, let final): machine.committed(kept: kept, final: final)
        case .tookOver(let ids): machine.tookOver(ids.map(job))
        case .woke: machine.woke(now: now)
        case .looked(let unfinished): machine.looked(unfinished: unfinished)
        case .due(let at): machine.nextDue(at, now: now)
        }
    }

    @Test func theReportCountsWhatCommitsSaid() {
        var machine = QueueWorkerStateMachine(concurrency: 4, claimGroup: 1, exitWhenEmpty: false)
        machine.claimed([Self.job(1), Self.job(2), Self.job(3)], at: 0)
        for id: Int64 in 1...3 {
            let action = machine.next(now: 0, free: 0)
            #expect(action == .start(Self.job(id)))
        }
        for _ in 0..<3 { machine.attemptEnded() }
        machine.committed(kept: true, final: true)
        machine.committed(kept: true, final: false)
        machine.committed(kept: false, final: true)
        #expect(machine.report.finished == 1)
        #expect(machine.report.retried == 1)
        #expect(machine.report.discarded == 1)
        #expect(machine.isIdle)
    }

    /// Rows: a lease's length, a renewal at `now`, whether an outage ended within a lease, and
    /// the renewal's interval, the leases' new end, whether others' expired leases are returned.
    @Test(arguments: [
        (lease: 30.0, now: 100.0, recovered: false, interval: 10.0, until: 130.0, reaps: true),
        (lease: 30.0, now: 100.0, recovered: true, interval: 10.0, until: 130.0, reaps: false),
        (lease: 3600.0, now: 5.0, recovered: false, interval: 1200.0, until: 3605.0, reaps: true),
    ])
    func leasesAreRenewedEveryThirdOfALease(lease: Double, now: Double, recovered: Bool, interval: Double, until: Double, reaps: Bool) {
        let renewal = QueueWorkerStateMachine.Renewal(lease: lease)
        #expect(renewal.interval == interval)
        #expect(renewal.until(now: now) == until)
        #expect(renewal.reaps(recoveredWithinLease: recovered) == reaps)
    }

    @Test(arguments: [
        (cancelled: false, serverOut: false, stop: QueueWorkerStateMachine.Stop.giveBack(failingFast: false)),
        (cancelled: false, serverOut: true, stop: .giveBack(failingFast: false)),
        (cancelled: true, serverOut: false, stop: .giveBack(failingFast: true)),
        (cancelled: true, serverOut: true, stop: .leaveToExpire),
    ])
    func aStoppedWorkerGivesItsLeasesBackUnlessTheServerIsOut(cancelled: Bool, serverOut: Bool, stop: QueueWorkerStateMachine.Stop) {
        #expect(QueueWorkerStateMachine.stop(cancelled: cancelled, serverOut: serverOut) == stop)
    }
}
