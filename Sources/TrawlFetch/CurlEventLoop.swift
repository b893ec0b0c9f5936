import CCurl
import Foundation
import Synchronization
import TrawlCore

/// Drives one libcurl multi handle on one thread: transfers are added, cancelled and resumed
/// through a locked command queue and a `curl_multi_wakeup`, and their bytes stream out to
/// async callers — no further ahead of each reader than its ``TransferWindow``.
///
/// Why the unchecked conformance below is safe: the only state touched from other threads is
/// `commands` (inside a `Mutex`), `pausedCount` (an `Atomic`) and `multi.wakeup()` (libcurl
/// documents `curl_multi_wakeup` as callable from any thread). `multi` and `transfers` are otherwise used only on `thread`,
/// which is the sole caller of `run()`.
final class CurlEventLoop: @unchecked Sendable {
    private enum Command {
        case add(id: Int, TransferSpec, TransferWindow, AsyncThrowingStream<FetchEvent, any Error>.Continuation)
        case cancel(id: Int)
        /// The reader caught up with a paused transfer.
        case resume(id: Int)
    }

    private struct Queue {
        var commands: [Command] = []
        var nextID = 0
        var shuttingDown = false
    }

    private let queue = Mutex(Queue())
    /// Updated by the loop thread after each turn; read from anywhere.
    private let pausedCount = Atomic<Int>(0)
    private let multi: CurlMulti
    /// Loop thread only.
    private var transfers: [Int: CurlTransfer] = [:]
    private var transfersByHandle: [UnsafeMutableRawPointer: Int] = [:]
    /// Easy handles libcurl would not take out of the multi handle: kept, never freed, so the
    /// multi handle never points at freed memory (libcurl refuses only for a programming error).
    private var stranded: [EasyHandle] = []

    init() {
        guard let multi = CurlMulti() else { fatalError("libcurl could not create a multi handle (out of memory)") }
        self.multi = multi
        let thread = Thread { [self] in self.run() }
        thread.name = "trawl.curl"
        thread.start()
    }

    /// Starts a transfer; its events arrive on the returned stream. Ending the stream's
    /// iteration (or cancelling the consuming task) removes the transfer from libcurl. The
    /// transfer pauses while its reader has a megabyte it has not taken (``TransferWindow``).
    func start(_ spec: TransferSpec) -> AsyncThrowingStream<FetchEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<FetchEvent, any Error>.makeStream()
        let window = TransferWindow()
        let id: Int? = queue.withLock { queue in
            guard !queue.shuttingDown else { return nil }
            queue.nextID += 1
            queue.commands.append(.add(id: queue.nextID, spec, window, continuation))
            return queue.nextID
        }
        guard let id else {
            continuation.finish(throwing: FetchError(.cancelled, url: spec.request.url.absoluteString, message: "the loader was shut down"))
            return stream
        }
        continuation.onTermination = { [weak self] termination in
            if case .cancelled = termination { self?.cancel(id) }
        }
        multi.wakeup()
        let reader = TransferReader(events: stream, window: window) { [weak self] in self?.resume(id) }
        // Pulled, so the reader's pace is known: each body piece it takes is counted off the window.
        return AsyncThrowingStream(unfolding: { try await reader.next() })
    }

    private func cancel(_ id: Int) {
        queue.withLock { $0.commands.append(.cancel(id: id)) }
        multi.wakeup()
    }

    private func resume(_ id: Int) {
        queue.withLock { $0.commands.append(.resume(id: id)) }
        multi.wakeup()
    }

    /// Transfers paused for their readers, now (loop thread's view; for tests and diagnostics).
    var pausedTransfers: Int {
        pausedCount.load(ordering: .relaxed)
    }

    /// Stops the loop: transfers in flight end with ``FetchError/Code/cancelled``.
    func shutdown() {
        queue.withLock { $0.shuttingDown = true }
        multi.wakeup()
    }

    private func run() {
        while true {
            let (commands, stopping) = queue.withLock { queue in
                defer { queue.commands.removeAll() }
                return (queue.commands, queue.shuttingDown)
            }
            for command in commands { handle(command) }
            if stopping { break }
            if !transfers.isEmpty {
                do {
                    _ = try multi.perform()
                } catch {
                    failAll(error)
                }
                for (handle, code) in multi.completed() { finish(handle, code) }
                for transfer in transfers.values { transfer.flush() }
            }
            let wait = sweep(.now)
            do {
                try multi.poll(timeoutMS: wait)
            } catch {
                // The multi handle is broken: nothing in it can finish. Fail what runs, and do
                // not spin while waiting for the next command.
                failAll(error)
                usleep(10_000)
            }
        }
        for (_, transfer) in transfers {
            detach(transfer)
            transfer.cancel(FetchError(.cancelled, url: transfer.url, message: "the loader was shut down"))
        }
        transfers.removeAll()
        // Pending adds that never started.
        let leftovers = queue.withLock { queue in
            defer { queue.commands.removeAll() }
            return queue.commands
        }
        for case .add(_, let spec, _, let continuation) in leftovers {
            continuation.finish(throwing: FetchError(.cancelled, url: spec.request.url.absoluteString, message: "the loader was shut down"))
        }
    }

    private func handle(_ command: Command) {
        switch command {
        case .add(let id, let spec, let window, let continuation):
            guard let easy = EasyHandle() else {
                continuation.finish(throwing: FetchError(.transferFailed, url: spec.request.url.absoluteString, message: "libcurl could not create a handle"))
                return
            }
            let transfer = CurlTransfer(id: id, easy: easy, spec: spec, window: window, continuation: continuation)
            do {
                try transfer.configure(spec, share: multi.share)
                try multi.add(easy)
            } catch {
                transfer.cancel(FetchError(.transferFailed, url: transfer.url, message: "\(error)"))
                return
            }
            transfers[id] = transfer
            transfersByHandle[easy.raw] = id
        case .cancel(let id):
            guard let transfer = transfers.removeValue(forKey: id) else { return }
            transfersByHandle[transfer.easy.raw] = nil
            detach(transfer)
            transfer.cancel(FetchError(.cancelled, url: transfer.url, message: "cancelled"))
        case .resume(let id):
            // Gone already (finished, cancelled, timed out): nothing to resume.
            guard let transfer = transfers[id] else { return }
            do {
                try transfer.resume()
            } catch {
                // libcurl hands the held bytes on inside the call: a callback that refused them
                // (the body passed its cap, the reader left) fails the call, and says why.
                drop(transfer, transfer.abortReason ?? FetchError(.transferFailed, url: transfer.url, message: "\(error)"))
            }
        }
    }

    /// One pass over the transfers after a turn: ends those past their deadline with their
    /// timeout error, counts those waiting for their readers (``pausedTransfers``), and returns
    /// how long the loop may wait for activity — until the nearest deadline, at most a second
    /// while transfers run (10 s without: a command wakes it).
    private func sweep(_ now: ContinuousClock.Instant) -> Int32 {
        var wait = Duration.seconds(transfers.isEmpty ? 10 : 1)
        var paused = 0
        for transfer in transfers.values {
            guard let left = transfer.timeLeft(now) else {
                paused += 1
                continue
            }
            if left <= .zero {
                drop(transfer, transfer.timeoutError)
            } else if left < wait {
                wait = left
            }
        }
        pausedCount.store(paused, ordering: .relaxed)
        return Int32(wait.milliseconds)
    }

    /// Takes `transfer` out of libcurl and ends its stream with `error`.
    private func drop(_ transfer: CurlTransfer, _ error: FetchError) {
        transfers[transfer.id] = nil
        transfersByHandle[transfer.easy.raw] = nil
        detach(transfer)
        transfer.cancel(error)
    }

    /// Takes a transfer's handle out of the multi handle. Should libcurl refuse, the easy handle
    /// is kept alive (never freed while the multi handle may still point at it) and the error
    /// returned for the transfer's outcome.
    @discardableResult
    private func detach(_ transfer: CurlTransfer) -> (any Error)? {
        do {
            try multi.remove(transfer.easy)
            return nil
        } catch {
            stranded.append(transfer.easy)
            return error
        }
    }

    /// Fails every running transfer with `error` (a multi call that failed, named in it).
    private func failAll(_ error: any Error) {
        for (_, transfer) in transfers {
            transfersByHandle[transfer.easy.raw] = nil
            detach(transfer)
            transfer.cancel(FetchError(.transferFailed, url: transfer.url, message: "\(error)"))
        }
        transfers.removeAll()
    }

    private func finish(_ handle: UnsafeMutableRawPointer, _ code: CURLcode) {
        guard let id = transfersByHandle.removeValue(forKey: handle), let transfer = transfers.removeValue(forKey: id) else { return }
        if let error = detach(transfer) {
            transfer.cancel(FetchError(.transferFailed, url: transfer.url, message: "\(error)"))
            return
        }
        transfer.complete(code)
    }
}

/// Hands a transfer's events to its reader one at a time, counting each body piece off the
/// transfer's window as it is taken, and asking for the resume the window calls for.
private actor TransferReader {
    private var events: AsyncThrowingStream<FetchEvent, any Error>.AsyncIterator
    private let window: TransferWindow
    private let resume: @Sendable () -> Void

    init(events: AsyncThrowingStream<FetchEvent, any Error>, window: TransferWindow, resume: @escaping @Sendable () -> Void) {
        self.events = events.makeAsyncIterator()
        self.window = window
        self.resume = resume
    }

    func next() async throws -> FetchEvent? {
        // Out of the property for the call (one `next()` runs at a time: the stream's consumer
        // waits for each event before it asks for the next).
        var iterator = events
        defer { events = iterator }
        let event = try await iterator.next(isolation: self)
        if case .body(let piece)? = event, window.taken(piece.count) { resume() }
        return event
    }
}
