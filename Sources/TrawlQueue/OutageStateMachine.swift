import Foundation

/// A ``QueueLink``'s outages, kept apart from its connections, tasks and waiting operations so
/// that it can be tested without PostgreSQL. The link tells it what happened (a lost
/// connection, a probe sent or answered, an operation that succeeded) and does what the
/// answers say: warn once, start or stop the probe, let waiting operations go, log the end.
///
/// States: *connected* (no outage); *out* (an outage is open, operations wait, the probe tries
/// a connection after each backoff delay, ``delay(before:jitter:)``); *reached* (the probe got
/// an answer, operations go through, the first to succeed ends the outage — one that loses its
/// connection again sends the link back to *out*, the backoff going on where it left off);
/// *closed* (the store is closing: nothing waits and nothing probes).
struct OutageStateMachine {
    struct Outage: Equatable {
        var since: ContinuousClock.Instant
        /// Probes sent during this outage.
        var attempts = 0
        /// The probe reached the server: operations go through, the first to succeed ends the outage.
        var reached = false
    }

    /// What a lost connection asks of the link.
    enum Lost: Equatable {
        /// An outage opens: warn, and start the probe.
        case opened
        /// The server was reached but lost again: start the probe again.
        case probeAgain
        /// The probe is at work already (or the link is closed).
        case none
    }

    /// The first probe's delay after a connection is lost; each failed probe doubles it.
    static let firstDelay = 0.1
    /// The longest delay between two probes.
    static let longestDelay = 5.0

    private(set) var outage: Outage?
    private(set) var closed = false
    private(set) var figures = QueueStore.Outages()
    private(set) var recoveredAt: ContinuousClock.Instant?

    /// An outage is open and the probe has not reached the server yet.
    var isOut: Bool { outage.map { !$0.reached } ?? false }

    /// Operations wait: out, and not closed.
    var mustWait: Bool { isOut && !closed }

    /// Whether the last outage ended less than `limit` before `now`.
    func recovered(within limit: Duration, now: ContinuousClock.Instant) -> Bool {
        recoveredAt.map { $0.duration(to: now) < limit } ?? false
    }

    mutating func lost(now: ContinuousClock.Instant) -> Lost {
        guard !closed else { return .none }
        guard let open = outage else {
            outage = Outage(since: now)
            figures.count += 1
            return .opened
        }
        guard open.reached else { return .none }
        outage?.reached = false
        return .probeAgain
    }

    /// An operation succeeded: returns the outage it ends, if one was open.
    mutating func succeeded(now: ContinuousClock.Instant) -> Outage? {
        guard let ended = outage else { return nil }
        outage = nil
        recoveredAt = now
        return ended
    }

    mutating func close() { closed = true }

    /// Before the probe's next attempt: its number (0-based; nil: no outage, the probe stops).
    var nextProbe: Int? { outage?.attempts }

    /// The probe's delay has passed: returns false if the outage ended or the link closed
    /// meanwhile (the probe stops), else counts the attempt.
    mutating func probing() -> Bool {
        guard outage != nil, !closed else { return false }
        outage?.attempts += 1
        figures.attempts += 1
        return true
    }

    /// The probe reached the server: returns false if the outage had already ended.
    mutating func reached() -> Bool {
        guard outage != nil else { return false }
        outage?.reached = true
        return true
    }

    /// How long to wait before probe number `attempt` (0-based): the doubling delay, capped,
    /// each a point in its upper half (`jitter` in 0.5...1), so processes that lost the server
    /// together do not knock on it together.
    static func delay(before attempt: Int, jitter: Double) -> Double {
        min(longestDelay, firstDelay * pow(2, Double(min(attempt, 30)))) * jitter
    }
}
