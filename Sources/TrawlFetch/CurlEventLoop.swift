import CCurl
import Foundation
import Synchronization
import TrawlCore

/// Drives one libcurl multi handle on one thread: transfers are added and cancelled through a
/// locked command queue and a `curl_multi_wakeup`, and their bytes stream out to async callers.
///
/// Why the unchecked conformance below is safe: the only state touched from other threads is
/// `commands` (inside a `Mutex`) and `multi.wakeup()` (libcurl documents `curl_multi_wakeup` as
/// callable from any thread). `multi` and `transfers` are otherwise used only on `thread`,
/// which is the sole caller of `run()`.
final class CurlEventLoop: @unchecked Sendable {
    private enum Command {
        case add(id: Int, TransferSpec, AsyncThrowingStream<FetchEvent, any Error>.Continuation)
        case cancel(id: Int)
    }

    private struct Queue {
        var commands: [Command] = []
        var nextID = 0
        var shuttingDown = false
    }

    private let queue = Mutex(Queue())
    private let multi: CurlMulti
    /// Loop thread only.
    private var transfers: [Int: CurlTransfer] = [:]
    private var transfersByHandle: [UnsafeMutableRawPointer: Int] = [:]

    init() {
        guard let multi = CurlMulti() else { fatalError("libcurl could not create a multi handle (out of memory)") }
        self.multi = multi
        let thread = Thread { [self] in self.run() }
        thread.name = "trawl.curl"
        thread.start()
    }

    /// Starts a transfer; its events arrive on the returned stream. Ending the stream's
    /// iteration (or cancelling the consuming task) removes the transfer from libcurl.
    func start(_ spec: TransferSpec) -> AsyncThrowingStream<FetchEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<FetchEvent, any Error>.makeStream()
        let id: Int? = queue.withLock { queue in
            guard !queue.shuttingDown else { return nil }
            queue.nextID += 1
            queue.commands.append(.add(id: queue.nextID, spec, continuation))
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
        return stream
    }

    private func cancel(_ id: Int) {
        queue.withLock { $0.commands.append(.cancel(id: id)) }
        multi.wakeup()
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
                _ = multi.perform()
                for (handle, code) in multi.completed() { finish(handle, code) }
            }
            multi.poll(timeoutMS: transfers.isEmpty ? 10_000 : 1_000)
        }
        for (_, transfer) in transfers {
            multi.remove(transfer.easy)
            transfer.cancel(FetchError(.cancelled, url: transfer.url, message: "the loader was shut down"))
        }
        transfers.removeAll()
        // Pending adds that never started.
        let leftovers = queue.withLock { queue in
            defer { queue.commands.removeAll() }
            return queue.commands
        }
        for case .add(_, let spec, let continuation) in leftovers {
            continuation.finish(throwing: FetchError(.cancelled, url: spec.request.url.absoluteString, message: "the loader was shut down"))
        }
    }

    private func handle(_ command: Command) {
        switch command {
        case .add(let id, let spec, let continuation):
            guard let easy = EasyHandle() else {
                continuation.finish(throwing: FetchError(.transferFailed, url: spec.request.url.absoluteString, message: "libcurl could not create a handle"))
                return
            }
            let transfer = CurlTransfer(id: id, easy: easy, spec: spec, continuation: continuation)
            transfer.configure(spec, share: multi.share)
            let code = multi.add(easy)
            guard code == CURLM_OK else {
                transfer.cancel(FetchError(.transferFailed, url: transfer.url, message: String(cString: curl_multi_strerror(code))))
                return
            }
            transfers[id] = transfer
            transfersByHandle[easy.raw] = id
        case .cancel(let id):
            guard let transfer = transfers.removeValue(forKey: id) else { return }
            transfersByHandle[transfer.easy.raw] = nil
            multi.remove(transfer.easy)
            transfer.cancel(FetchError(.cancelled, url: transfer.url, message: "cancelled"))
        }
    }

    private func finish(_ handle: UnsafeMutableRawPointer, _ code: CURLcode) {
        guard let id = transfersByHandle.removeValue(forKey: handle), let transfer = transfers.removeValue(forKey: id) else { return }
        multi.remove(transfer.easy)
        transfer.complete(code)
    }
}
