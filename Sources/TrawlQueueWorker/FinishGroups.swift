/// When a ``QueueCommitter``'s waiting outcomes go to the queue, kept apart from its IO so that
/// it can be tested without PostgreSQL: outcomes arrive (``arrived(_:at:)``), and one writer
/// at a time asks ``next(now:)`` whether to write, wait, or stop.
///
/// An outcome waits until `group` of them are ready, or the oldest has waited `delay`, or a
/// flush is asked for — and, in any case, until the previous group's statement has returned
/// (one writer). A group is everything waiting when it goes.
struct FinishGroups<Item> {
    /// What an arrival asks of the committer.
    enum Arrival: Equatable {
        /// No writer runs: start one.
        case startWriter
        /// The group is full: end the writer's wait, if it waits.
        case cutWait
        case none
    }

    /// What the writer does next.
    enum Step {
        /// Wait until `deadline` (or until the wait is cut), then ask again.
        case wait(until: ContinuousClock.Instant)
        /// Write these in one statement, then ask again.
        case write([Item])
        /// Nothing waits: the writer ends (the next arrival starts another).
        case stop
    }

    /// Write at once when this many wait.
    let group: Int
    /// The longest the oldest waiting outcome waits for others.
    let delay: Duration
    private(set) var waiting: [(item: Item, arrived: ContinuousClock.Instant)] = []
    /// A writer runs.
    private(set) var writing = false
    /// The writer waited for the group now waiting: it goes when asked next.
    private var waited = false
    /// A flush was asked for: the next group goes without waiting.
    private var flushNow = false

    init(group: Int, delay: Duration) {
        self.group = max(1, group)
        self.delay = delay
    }

    mutating func arrived(_ item: Item, at now: ContinuousClock.Instant) -> Arrival {
        waiting.append((item, now))
        if !writing {
            writing = true
            return .startWriter
        }
        return waiting.count >= group ? .cutWait : .none
    }

    /// Write what waits now, without waiting for more.
    mutating func flush() { flushNow = true }

    mutating func next(now: ContinuousClock.Instant) -> Step {
        guard let oldest = waiting.first?.arrived else {
            writing = false
            waited = false
            return .stop
        }
        let deadline = oldest + delay
        if !waited, waiting.count < group, !flushNow, now < deadline {
            waited = true
            return .wait(until: deadline)
        }
        let items = waiting.map(\.item)
        waiting.removeAll()
        waited = false
        flushNow = false
        return .write(items)
    }
}

extension FinishGroups.Step: Equatable where Item: Equatable {}
extension FinishGroups.Step: Sendable where Item: Sendable {}
