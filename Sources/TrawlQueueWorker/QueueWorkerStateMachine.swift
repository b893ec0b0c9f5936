import TrawlQueue
import TrawlStore

/// When a ``QueueWorker`` claims, starts, waits, sleeps and stops: the rule its run follows,
/// kept apart from the queue's IO so that it can be tested without PostgreSQL. The worker
/// tells it what happened (a claim's jobs, an attempt's end, a commit's outcome, jobs a commit
/// took over, a wake-up) and asks ``next(now:free:)`` what to do; `free` is the room its
/// `WorkerLeases` have left, which its committer changes as well.
///
/// Jobs are *held* (leased to the worker, not started), *in flight* (an attempt running) or
/// *committing* (ended, the outcome on its way to the queue). A run goes round one cycle:
/// 1. **Claim** when there is room for a claim group (any room while idle), unless the last
///    claim found nothing and nothing has changed since (a wake-up) and a tenth of a second
///    has not passed: a claim that found nothing found every host full or idle, and another
///    would only cost a transaction.
/// 2. **Start** held jobs while slots are free.
/// 3. **Settle**: after a claim that found jobs and left room for another group, claim again
///    at once. With nothing held, in flight or committing and the last claim empty, the worker
///    is *idle*: told to exit when the queue is empty, it looks for work and exits if there is
///    none; otherwise it tells its observer and sets a timer for the next due time (not sooner
///    than 50 ms, not again if one is set earlier).
/// 4. **Wait** for a signal; every signal begins the next cycle.
///
/// Leases are renewed on a timer of their own (``Renewal``), and a stop gives them back unless
/// the server is out (``stop(cancelled:serverOut:)``).
struct QueueWorkerStateMachine {
    /// What ``QueueWorker`` does next.
    enum Action: Equatable {
        /// Reserve the free room, claim up to that many jobs; the answer goes to ``claimed(_:at:)``.
        case claim
        /// Run an attempt for `job`; its end comes back as ``attemptEnded()`` (or ``attemptAbandoned()``).
        case start(Job)
        /// Ask whether the queue has unfinished work; the answer goes to ``looked(unfinished:)``.
        case lookForWork
        /// Tell the observer the worker is idle and ask when something falls due; the answer
        /// goes to ``nextDue(_:now:)``.
        case idle
        /// Wake the worker at `at` (seconds on its clock).
        case setTimer(at: Double)
        /// Wait for the next signal.
        case wait
        /// Wake the other workers (they may have missed the last finish) and end the run.
        case exit
    }

    /// How a stopping worker treats the jobs it holds.
    enum Stop: Equatable {
        /// Give every lease back now; `failingFast`: without waiting out an outage (stopped by a person).
        case giveBack(failingFast: Bool)
        /// The server is out: leave the leases to run out.
        case leaveToExpire
    }

    /// Slots: attempts running at once.
    let concurrency: Int
    /// Claims go in groups of this many (a claim is a transaction).
    let claimGroup: Int
    let exitWhenEmpty: Bool
    /// A claim that found nothing is repeated only after a wake-up or this many seconds.
    static let emptyClaimPause = 0.1
    /// The soonest an idle worker's timer fires: a host due now but not claimable (another
    /// worker holds its row for a claim) is looked at again shortly rather than at once.
    static let soonestTimer = 0.05

    private enum Phase: Equatable {
        case claim, start, settle, idle, timer(Double), wait, exit
    }
    private var phase = Phase.claim
    private(set) var inFlight = 0
    private(set) var committing = 0
    /// Claimed jobs not started yet, taken from `nextHeld` on.
    private var held: [Job] = []
    private var nextHeld = 0
    /// Jobs the claim of this cycle found.
    private var claimedNow = 0
    /// When the timer set last fires (nil: none set, or it has fired).
    private(set) var timerAt: Double?
    /// When the last claim found nothing (nil: it found something, or a wake-up came since).
    private(set) var emptyClaimAt: Double?
    private(set) var report = QueueWorker.Report()

    init(concurrency: Int, claimGroup: Int, exitWhenEmpty: Bool) {
        self.concurrency = max(1, concurrency)
        self.claimGroup = max(1, claimGroup)
        self.exitWhenEmpty = exitWhenEmpty
    }

    /// Jobs held, not started.
    var heldCount: Int { held.count - nextHeld }

    /// Nothing held, in flight or committing.
    var isIdle: Bool { inFlight == 0 && committing == 0 && heldCount == 0 }

    // MARK: What happened

    /// A claim's answer; `at`: when it was sent.
    mutating func claimed(_ jobs: [Job], at: Double) {
        emptyClaimAt = jobs.isEmpty ? at : nil
        claimedNow = jobs.count
        hold(jobs)
    }

    /// The answer to ``Action/lookForWork``.
    mutating func looked(unfinished: Bool) {
        phase = unfinished ? .idle : .exit
    }

    /// The answer to ``Action/idle``: when the next job falls due (nil: none waits).
    mutating func nextDue(_ wake: Double?, now: Double) {
        phase = .wait
        guard let wake else { return }
        let at = max(wake, now + Self.soonestTimer)
        if timerAt.map({ at < $0 }) ?? true {
            timerAt = at
            phase = .timer(at)
        }
    }

    /// An attempt ended: its slot is free, its outcome on its way to the queue.
    mutating func attemptEnded() {
        inFlight -= 1
        committing += 1
        phase = .claim
    }

    /// An attempt was cancelled: its slot is free, its outcome says nothing.
    mutating func attemptAbandoned() {
        inFlight -= 1
        phase = .claim
    }

    /// An ended attempt's outcome is committed; `kept` false: its lease had expired and the
    /// result was discarded; `final`: done or failed, not to be tried again.
    mutating func committed(kept: Bool, final: Bool) {
        committing -= 1
        if !kept {
            report.discarded += 1
        } else if final {
            report.finished += 1
        } else {
            report.retried += 1
        }
        phase = .claim
    }

    /// Jobs leased in the slots a commit freed.
    mutating func tookOver(_ jobs: [Job]) {
        hold(jobs)
        phase = .claim
    }

    /// A notification, the lease timer or this worker's timer: something may have changed.
    mutating func woke(now: Double) {
        emptyClaimAt = nil
        if let at = timerAt, at <= now { timerAt = nil }
        phase = .claim
    }

    private mutating func hold(_ jobs: [Job]) {
        held.removeFirst(nextHeld)
        nextHeld = 0
        held.append(contentsOf: jobs)
    }

    // MARK: What to do

    mutating func next(now: Double, free: Int) -> Action {
        while true {
            switch phase {
            case .claim:
                claimedNow = 0
                phase = .start
                let claimable = emptyClaimAt.map { now - $0 >= Self.emptyClaimPause } ?? true
                if claimable, free >= claimGroup || (isIdle && free > 0) { return .claim }
            case .start:
                if inFlight < concurrency, nextHeld < held.count {
                    let job = held[nextHeld]
                    nextHeld += 1
                    inFlight += 1
                    return .start(job)
                }
                phase = .settle
            case .settle:
                // A full claim may leave more to take at once.
                if claimedNow > 0, free >= claimGroup {
                    phase = .claim
                    continue
                }
                guard isIdle, emptyClaimAt != nil else {
                    phase = .wait
                    return .wait
                }
                if exitWhenEmpty {
                    phase = .wait
                    return .lookForWork
                }
                phase = .idle
            case .idle:
                phase = .wait
                return .idle
            case .timer(let at):
                phase = .wait
                return .setTimer(at: at)
            case .wait:
                return .wait
            case .exit:
                return .exit
            }
        }
    }

    /// What a worker leaving its run does with its leases: `cancelled` (stopped by a person,
    /// not out of work) and `serverOut` (an outage is open and the probe has not reached the server).
    static func stop(cancelled: Bool, serverOut: Bool) -> Stop {
        if cancelled, serverOut { return .leaveToExpire }
        return .giveBack(failingFast: cancelled)
    }

    /// The lease timer: every third of a lease, renew this worker's leases for a whole one, then
    /// return expired ones to the queue — except within a lease of an outage's end, when every
    /// worker's leases may look expired (none could renew) and each must first renew its own.
    struct Renewal: Equatable {
        /// A lease's length, seconds.
        let lease: Double

        /// Seconds between renewals.
        var interval: Double { lease / 3 }

        /// Renewed at `now`, a lease lasts until then.
        func until(now: Double) -> Double { now + lease }

        /// After a renewal: whether to return others' expired leases.
        func reaps(recoveredWithinLease: Bool) -> Bool { !recoveredWithinLease }
    }
}
