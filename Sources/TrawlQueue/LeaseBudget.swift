import Synchronization

/// How many jobs a worker may lease at once, shared by its claim loop and its committer: every
/// job leased to the worker (held, running, or finished but not yet committed) and every claim
/// still on its way counts. Both sides reserve before they ask the queue and give back what
/// the queue did not hand out, so the two never lease more than the worker's capacity between
/// them.
final class LeaseBudget: Sendable {
    let capacity: Int
    private let used = Mutex(0)

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Room left now.
    var free: Int { used.withLock { capacity - $0 } }

    /// Reserves up to `count` (as much as is free); returns how many were reserved.
    func reserve(upTo count: Int) -> Int {
        used.withLock { used in
            let granted = max(0, min(count, capacity - used))
            used += granted
            return granted
        }
    }

    /// Gives back `count` leases: jobs that ended, or reservations the queue did not fill.
    func release(_ count: Int) {
        guard count > 0 else { return }
        used.withLock { $0 = max(0, $0 - count) }
    }

    /// `finished` jobs leave; up to as many are reserved again for the jobs that may take
    /// their slots over, in one step, so a claim in between cannot take the room first.
    func exchange(finished: Int) -> Int {
        used.withLock { used in
            used = max(0, used - finished)
            let granted = max(0, min(finished, capacity - used))
            used += granted
            return granted
        }
    }
}
