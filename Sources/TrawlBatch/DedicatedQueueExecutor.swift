import Dispatch

/// A serial executor on a dispatch queue of its own, for an actor whose methods block on I/O
/// (reading a URL list from a pipe that a slow producer writes): its waits hold that queue's
/// thread, never one of the cooperative threads that fetch and parse pages.
final class DedicatedQueueExecutor: SerialExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
