import TrawlStore

/// When a ``BatchRunner`` reads its lists, claims, starts, flushes the output, sleeps and stops:
/// the rule its run follows, kept apart from the store's and the network's IO so that it can be
/// tested without either. It holds the ``Scheduler`` (which host may go next) and the run's own
/// bookkeeping: the lists still being read, the timer, the output file's flushes and the progress
/// counts. The runner tells it what happened and asks ``next(now:)`` what to do, as a
/// `QueueWorker` asks its own machine: the two runs have one shape.
///
/// A run goes round one cycle:
/// 1. **Read** the next chunk of the first list not read to its end, unless a read is running.
/// 2. **Claim** due jobs of the hosts the scheduler offers, in groups of ``claimGroup`` while
///    the run is busy (a claim is a transaction), then **start** each claimed job.
/// 3. **Settle**: with nothing in flight, planned or being read, ask the store whether work is
///    left; none ends the run, some is learned and the cycle begins again. Otherwise set a timer
///    for the scheduler's next due time (unless one set earlier fires first).
/// 4. **Wait** for an event (an attempt finished, a chunk read, the timer, a flush falling due).
/// 5. **Flush** the output file when a flush fell due, a quarter second passed since the last,
///    or nothing is in flight (the run may now wait long, and what is done should show); then
///    plan a flush a quarter second of wall time ahead while results wait unwritten.
struct BatchRunStateMachine {
    /// What ``BatchRunner`` does next.
    enum Action: Equatable {
        /// Read the next chunk of the first pending list; the answer goes to ``intakeRead(_:)``
        /// or ``intakeFailed(_:)``.
        case readIntake
        /// Claim up to `limit` due jobs of each host; the answer goes to ``claimed(_:now:)``.
        case claim([Want])
        /// Run an attempt for `job` (it commits its outcome itself); its end comes back as
        /// ``finished(_:report:now:)`` (or ``abandoned()``).
        case start(Job)
        /// Ask the store which hosts have work; the answer goes to ``looked(_:)``.
        case lookForWork
        /// Wake the run at `at` (seconds on its clock); it comes back as ``timerFired()``.
        case setTimer(at: Double)
        /// Wait for the next event.
        case wait
        /// Bring the output file up to the store; then ``flushed(at:)``.
        case flush
        /// Wake the run a quarter second of wall time from now; it comes back as ``flushDue()``.
        case planFlush
        /// The store has no work left: end the run.
        case exit
    }

    /// A host and how many of its due jobs a claim may take.
    struct Want: Hashable {
        var host: String
        var limit: Int
    }

    /// Claims go in groups of this many free slots while attempts are in flight.
    let claimGroup: Int
    /// Whether there is an output file to keep in step.
    let hasOutput: Bool
    /// The output file is brought up to date at least this often (seconds) while results come.
    static let flushInterval = 0.25

    private enum Phase: Equatable {
        case read, claim, start, settle, looking, timer, wait, flush, planFlush, exit
    }
    private var phase = Phase.read
    private(set) var scheduler: Scheduler
    /// Lists not read to their end, and whether a read of the first is running.
    private var listsLeft: Int
    private var reading = false
    /// Claimed jobs not started yet.
    private var toStart: [Job] = []
    /// When the timer set last fires (nil: none set, or it has fired).
    private(set) var timerAt: Double?
    /// Results finished and not yet in the output file; a flush planned; a flush due now.
    private var unflushed = false
    private var flushPlanned = false
    private var flushNow = false
    private var lastFlush: Double
    /// What the progress line shows.
    private(set) var snapshot: BatchSnapshot
    /// Why a list could not be read on (the jobs read from it go on).
    private(set) var intakeError: String?

    init(scheduler: Scheduler, claimGroup: Int, lists: Int, hasOutput: Bool, snapshot: BatchSnapshot, now: Double) {
        self.scheduler = scheduler
        self.claimGroup = claimGroup
        self.hasOutput = hasOutput
        listsLeft = lists
        lastFlush = now
        self.snapshot = snapshot
        self.snapshot.totalKnown = lists == 0
    }

    /// What to do now. Called until it says ``Action/wait`` (or ``Action/exit``); each answer the
    /// runner gets from the store or from an event goes to the matching method first.
    mutating func next(now: Double) -> Action {
        while true {
            switch phase {
            case .read:
                phase = .claim
                if !reading, listsLeft > 0 {
                    reading = true
                    return .readIntake
                }
            case .claim:
                phase = .start
                scheduler.wake(now: now)
                let wants = scheduler.freeSlots >= claimGroup || scheduler.inFlight == 0 ? scheduler.wants(now: now) : []
                if !wants.isEmpty { return .claim(wants.map { Want(host: $0.host, limit: $0.limit) }) }
            case .start:
                if !toStart.isEmpty { return .start(toStart.removeFirst()) }
                snapshot.inFlight = scheduler.inFlight
                phase = .settle
            case .settle:
                if scheduler.isIdle, !reading, listsLeft == 0 {
                    // Nothing in flight or planned: make sure the store agrees before stopping.
                    phase = .looking
                    return .lookForWork
                }
                phase = .timer
            case .timer:
                phase = .wait
                if let wake = scheduler.nextWake, timerAt.map({ wake < $0 }) ?? true {
                    timerAt = wake
                    return .setTimer(at: wake)
                }
            case .wait, .looking:
                return .wait
            case .flush:
                phase = .planFlush
                if hasOutput, flushNow || now - lastFlush >= Self.flushInterval || scheduler.inFlight == 0 { return .flush }
            case .planFlush:
                phase = .read
                if unflushed, !flushPlanned, hasOutput {
                    flushPlanned = true
                    return .planFlush
                }
            case .exit:
                return .exit
            }
        }
    }

    /// A claim's answer: its jobs start next.
    mutating func claimed(_ claim: Claim, now: Double) {
        scheduler.claimed(claim, now: now)
        for job in claim.jobs where job.state == .retryLater { snapshot.waiting = max(0, snapshot.waiting - 1) }
        toStart = claim.jobs
    }

    /// The store's hosts with work: none ends the run, some are learned and the cycle begins again.
    mutating func looked(_ left: [HostWork]) {
        guard !left.isEmpty else {
            phase = .exit
            return
        }
        for work in left { scheduler.learn(work) }
        phase = .read
    }

    /// An attempt ended and committed its outcome.
    mutating func finished(_ job: Job, report: JobAttempt.Report, now: Double) {
        scheduler.finished(job, report: report, now: now)
        snapshot.finishedThisRun += report.outcome.isFinal ? 1 : 0
        unflushed = unflushed || report.outcome.isFinal
        switch report.outcome {
        case .done(let result):
            snapshot.done += 1
            snapshot.mediaFound += result.mediaCount
            snapshot.pagesRendered += result.rendered ? 1 : 0
        case .failed(let result):
            snapshot.failed += 1
            snapshot.pagesRendered += result.rendered ? 1 : 0
        case .retryLater:
            snapshot.waiting += 1
        }
        eventHandled()
    }

    /// An attempt ended because the run was cancelled: not committed, nothing to count.
    mutating func abandoned() {
        phase = .read
    }

    /// A chunk of the first pending list was read into the store.
    mutating func intakeRead(_ chunk: Intake.Chunk) {
        reading = false
        snapshot.total += chunk.added
        // Rejected lines are finished the moment they are read: they count as failed.
        snapshot.failed += chunk.rejected
        snapshot.finishedThisRun += chunk.rejected
        unflushed = unflushed || chunk.rejected > 0
        for host in chunk.hosts { scheduler.hasNewWork(host) }
        if chunk.finished { listsLeft -= 1 }
        snapshot.totalKnown = listsLeft == 0
        eventHandled()
    }

    /// The first pending list could not be read on: the jobs read from it go on, the rest of it
    /// is reported and skipped.
    mutating func intakeFailed(_ message: String) {
        reading = false
        intakeError = message
        listsLeft -= 1
        snapshot.totalKnown = listsLeft == 0
        eventHandled()
    }

    mutating func timerFired() {
        timerAt = nil
        eventHandled()
    }

    /// The planned flush fell due.
    mutating func flushDue() {
        flushPlanned = false
        flushNow = true
        eventHandled()
    }

    /// The output file holds every result finished so far.
    mutating func flushed(at now: Double) {
        lastFlush = now
        unflushed = false
        flushNow = false
    }

    private mutating func eventHandled() {
        phase = .flush
    }
}

extension JobOutcome {
    var isFinal: Bool {
        if case .retryLater = self { return false }
        return true
    }
}
