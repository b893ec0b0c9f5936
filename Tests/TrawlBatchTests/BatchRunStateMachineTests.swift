import Testing

@testable import TrawlBatch
@testable import TrawlStore

/// A batch run without a store or a network: ``BatchRunStateMachine`` fed events at made-up
/// times. After each event the machine is asked what to do until it waits, exits or needs an
/// answer, and those actions are compared with what the run should do.
@Suite struct BatchRunStateMachineTests {
    typealias Action = BatchRunStateMachine.Action

    static func job(_ id: Int64, host: String = "a.example", state: JobState = .pending) -> Job {
        Job(
            id: id, key: "https://\(host)/\(id)", input: "https://\(host)/\(id)", url: "https://\(host)/\(id)", host: host, state: state,
            attempts: 0, lastError: nil, nextAttemptAt: 0, duplicates: 0)
    }

    static func done(media: Int = 1) -> JobAttempt.Report {
        JobAttempt.Report(outcome: .done(JobResult(line: "{}", mediaCount: media)), latency: 0.1, holdHost: nil, succeeded: true)
    }

    static func machine(concurrency: Int = 4, perHost: Int = 2, lists: Int = 1, hasOutput: Bool = true) -> BatchRunStateMachine {
        var configuration = BatchConfiguration()
        configuration.concurrency = concurrency
        configuration.fetch.perHost = perHost
        return BatchRunStateMachine(
            scheduler: Scheduler(configuration: configuration), claimGroup: max(1, concurrency / 8), lists: lists, hasOutput: hasOutput,
            snapshot: BatchSnapshot(), now: 0)
    }

    /// The actions up to and including the first that waits, exits or needs an answer.
    static func actions(_ machine: inout BatchRunStateMachine, now: Double) -> [Action] {
        var actions: [Action] = []
        while true {
            let action = machine.next(now: now)
            actions.append(action)
            switch action {
            case .start, .setTimer, .planFlush: continue
            default: return actions
            }
        }
    }

    @Test func aStoreWithNothingLeftEndsTheRun() {
        var machine = Self.machine(lists: 0)
        #expect(Self.actions(&machine, now: 0) == [.lookForWork])
        machine.looked([])
        #expect(Self.actions(&machine, now: 0) == [.exit])
        #expect(machine.snapshot.totalKnown)
    }

    @Test func aListIsReadThenItsHostsAreClaimedAndStarted() {
        var machine = Self.machine(perHost: 2)
        // Reading: nothing to claim yet, nothing to look for while the list is being read.
        #expect(Self.actions(&machine, now: 0) == [.readIntake])
        #expect(Self.actions(&machine, now: 0) == [.wait])
        machine.intakeRead(Intake.Chunk(hosts: ["a.example"], added: 3, rejected: 0, finished: true))
        // Nothing in flight: the output file catches up at once, then the host's jobs are claimed.
        #expect(Self.actions(&machine, now: 0.01) == [.flush])
        machine.flushed(at: 0.01)
        #expect(Self.actions(&machine, now: 0.01) == [.claim([.init(host: "a.example", limit: 2)])])
        machine.claimed(Claim(jobs: [Self.job(1), Self.job(2)]), now: 0.01)
        #expect(Self.actions(&machine, now: 0.01) == [.start(Self.job(1)), .start(Self.job(2)), .wait])
        #expect(machine.snapshot.total == 3 && machine.snapshot.totalKnown && machine.snapshot.inFlight == 2)
    }

    @Test func aFinishedResultIsFlushedWithinAQuarterSecond() {
        var machine = Self.machine(concurrency: 4, perHost: 1)
        _ = Self.actions(&machine, now: 0)
        machine.intakeRead(Intake.Chunk(hosts: ["a.example", "b.example"], added: 2, rejected: 0, finished: true))
        _ = Self.actions(&machine, now: 0)
        machine.flushed(at: 0)
        _ = Self.actions(&machine, now: 0)
        // Each host had one job: the claim says both are exhausted.
        machine.claimed(Claim(jobs: [Self.job(1), Self.job(2, host: "b.example")], exhausted: ["a.example": nil, "b.example": nil]), now: 0)
        _ = Self.actions(&machine, now: 0)
        // One of two finishes early: no flush yet (one is in flight), a flush is planned instead.
        machine.finished(Self.job(1), report: Self.done(media: 3), now: 0.1)
        #expect(Self.actions(&machine, now: 0.1) == [.planFlush, .wait])
        #expect(machine.snapshot.done == 1 && machine.snapshot.mediaFound == 3 && machine.snapshot.finishedThisRun == 1)
        // The planned flush falls due: it happens, and is not planned again with nothing unwritten.
        machine.flushDue()
        #expect(Self.actions(&machine, now: 0.35) == [.flush])
        machine.flushed(at: 0.35)
        #expect(Self.actions(&machine, now: 0.35) == [.wait])
    }

    @Test func busyRunsClaimInGroups() {
        // 16 slots claim in groups of 2: one free slot waits for a second.
        var machine = Self.machine(concurrency: 16, perHost: 16, lists: 0, hasOutput: false)
        machine.looked([HostWork(host: "a.example", due: 40, nextAt: nil)])
        #expect(Self.actions(&machine, now: 0) == [.claim([.init(host: "a.example", limit: 16)])])
        machine.claimed(Claim(jobs: (1...16).map { Self.job($0) }), now: 0)
        let started = Self.actions(&machine, now: 0)
        #expect(started.count == 17 && started.last == .wait)
        machine.finished(Self.job(1), report: Self.done(), now: 0.01)
        #expect(Self.actions(&machine, now: 0.01) == [.wait])
        machine.finished(Self.job(2), report: Self.done(), now: 0.02)
        #expect(Self.actions(&machine, now: 0.02) == [.claim([.init(host: "a.example", limit: 2)])])
    }

    @Test func aRetryWaitsForItsTimerAndIsCountedAsWaiting() {
        var machine = Self.machine(concurrency: 2, perHost: 1, lists: 0, hasOutput: false)
        machine.looked([HostWork(host: "a.example", due: 1, nextAt: nil)])
        _ = Self.actions(&machine, now: 0)
        machine.claimed(Claim(jobs: [Self.job(1)], exhausted: ["a.example": nil]), now: 0)
        _ = Self.actions(&machine, now: 0)
        let retry = JobAttempt.Report(outcome: .retryLater(at: 5, error: "HTTP 503"), latency: 0.1, holdHost: nil, succeeded: false)
        machine.finished(Self.job(1), report: retry, now: 1)
        // Not final: nothing to flush (no output file either); the host wakes at the retry time.
        #expect(Self.actions(&machine, now: 1) == [.setTimer(at: 5), .wait])
        #expect(machine.snapshot.waiting == 1 && machine.snapshot.finishedThisRun == 0)
        machine.timerFired()
        #expect(Self.actions(&machine, now: 5.01) == [.claim([.init(host: "a.example", limit: 1)])])
        machine.claimed(Claim(jobs: [Self.job(1, state: .retryLater)]), now: 5.01)
        #expect(machine.snapshot.waiting == 0)
    }

    @Test func anUnreadableListIsReportedAndTheRunGoesOn() {
        var machine = Self.machine(lists: 2)
        #expect(Self.actions(&machine, now: 0) == [.readIntake])
        machine.intakeFailed("line 3: not UTF-8")
        // The next list is read; the failure is kept for the end of the run.
        #expect(Self.actions(&machine, now: 0) == [.flush])
        machine.flushed(at: 0)
        #expect(Self.actions(&machine, now: 0) == [.readIntake])
        #expect(machine.intakeError == "line 3: not UTF-8" && !machine.snapshot.totalKnown)
        machine.intakeRead(Intake.Chunk(hosts: [], added: 1, rejected: 1, finished: true))
        #expect(machine.snapshot.failed == 1 && machine.snapshot.totalKnown)
    }
}
