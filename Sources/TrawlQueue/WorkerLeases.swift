import Synchronization

/// The jobs a worker holds leases on, and how many more it may take, shared by its claim loop,
/// its committer and its lease renewal.
///
/// Every job leased to the worker (held, running, or finished but not yet committed) counts
/// against ``capacity``, and so does every claim still on its way: both the loop and the
/// committer reserve before they ask the queue and give back what the queue did not hand out,
/// so between them they never lease more than the capacity. Renewal extends exactly the leases
/// listed here: a job the queue still shows as this worker's after its finish was committed
/// without waiting for the disk and then lost in a server crash is not renewed, so its lease
/// runs out and the job is worked again.
package final class WorkerLeases: Sendable {
    package let capacity: Int
    private struct State {
        var reserved = 0
        var jobs: Set<Int64> = []
        var used: Int { reserved + jobs.count }
    }
    private let state = Mutex(State())

    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Room left now.
    package var free: Int { state.withLock { capacity - $0.used } }

    /// The jobs leased now.
    package var jobs: [Int64] { state.withLock { Array($0.jobs) } }

    /// Reserves up to `count` (as much as is free); returns how many were reserved.
    package func reserve(upTo count: Int) -> Int {
        state.withLock { state in
            let granted = max(0, min(count, capacity - state.used))
            state.reserved += granted
            return granted
        }
    }

    /// The queue answered a reservation of `reserved`: `jobs` are leased now, the rest of the
    /// reservation is free again.
    package func fill(_ reserved: Int, with jobs: [Int64]) {
        state.withLock { state in
            state.reserved = max(0, state.reserved - reserved)
            state.jobs.formUnion(jobs)
        }
    }

    /// A job no longer leased (its attempt was abandoned).
    package func remove(_ job: Int64) {
        _ = state.withLock { $0.jobs.remove(job) }
    }

    /// `finished` jobs leave; up to as many slots are reserved for the jobs that may take
    /// them over, in one step, so a claim in between cannot take the room first.
    package func exchange(finished: [Int64]) -> Int {
        state.withLock { state in
            state.jobs.subtract(finished)
            let granted = max(0, min(finished.count, capacity - state.used))
            state.reserved += granted
            return granted
        }
    }
}
