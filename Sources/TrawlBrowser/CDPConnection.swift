import Foundation
import Glibc
import TrawlCore

/// The DevTools protocol over Chromium's pipe: commands with ids matched to their replies, each
/// with its own timeout, and events handed to the session (tab) they belong to.
///
/// A thread of its own blocks in `read` on the event pipe (off the cooperative pool), splits the
/// NUL-framed messages and parses them; this actor matches them up in arrival order. When the
/// browser dies, every pending command fails with ``BrowserError/Code/crashed`` and every open
/// session ends with that error.
actor CDPConnection {
    private struct Pending {
        var continuation: CheckedContinuation<JSONValue, any Error>
        var method: String
        var timer: Task<Void, Never>?
    }

    private enum Inbound: Sendable {
        case message(JSONValue)
        case endOfFile
    }

    private let process: ChromiumProcess
    private var nextID = 1
    private var pending: [Int: Pending] = [:]
    private var sessions: [String: AsyncStream<PageSignal>.Continuation] = [:]
    /// A page's child sessions (its out-of-process iframes), whose events go to the page's stream.
    private var children: [String: [String]] = [:]
    /// Set once the browser is gone: every later command fails with it at once.
    private(set) var closedError: BrowserError?

    init(process: ChromiumProcess) {
        self.process = process
        let (inbound, feed) = AsyncStream<Inbound>.makeStream()
        let fd = process.eventFD
        let thread = Thread { Self.readLoop(fd: fd, feed: feed) }
        thread.name = "trawl.browser-reader"
        thread.start()
        Task { [weak self] in
            for await message in inbound {
                guard let self else { return }
                await self.receive(message)
            }
        }
    }

    var isClosed: Bool { closedError != nil }

    /// Sends `method` and waits for its reply's `result`.
    /// - Parameters:
    ///   - sessionId: the tab's session for page commands; `nil` for the browser's.
    ///   - timeout: how long the reply may take; then the command fails with
    ///     ``BrowserError/Code/timedOut`` (its late reply, if any, is dropped).
    func send(_ method: String, _ params: [String: JSONValue] = [:], sessionId: String? = nil, timeout: Duration) async throws -> JSONValue {
        if let closedError { throw closedError }
        try Task.checkCancellation()
        let id = nextID
        nextID += 1
        var message: [String: JSONValue] = ["id": .number(Double(id)), "method": .string(method), "params": .object(params)]
        if let sessionId { message["sessionId"] = .string(sessionId) }
        var bytes = JSONWriter.bytes(.object(message))
        bytes.append(0)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<JSONValue, any Error>) in
                let timer = Task { [weak self] in
                    guard (try? await Task.sleep(for: timeout)) != nil else { return }
                    await self?.finish(id, with: .failure(BrowserError.timedOut(method)))
                }
                pending[id] = Pending(continuation: continuation, method: method, timer: timer)
                if !write(bytes) { browserGone("the browser stopped reading commands") }
            }
        } onCancel: {
            Task { [weak self] in await self?.finish(id, with: .failure(CancellationError())) }
        }
    }

    /// Routes the events of `sessionId` to `continuation` until ``closeSession(_:)``.
    func openSession(_ sessionId: String, continuation: AsyncStream<PageSignal>.Continuation) {
        if let closedError {
            continuation.yield(.closed(closedError))
            continuation.finish()
            return
        }
        sessions[sessionId] = continuation
    }

    /// Routes the events of `child` (an iframe target attached to the page `parent`) into the
    /// parent's stream until the parent's session closes. Does nothing once the parent is gone.
    func openChildSession(_ child: String, parent: String) {
        guard let continuation = sessions[parent] else { return }
        sessions[child] = continuation
        children[parent, default: []].append(child)
    }

    /// Stops routing a child session's events (its iframe went away); the page's stream goes on.
    func closeChildSession(_ child: String, parent: String) {
        guard children[parent]?.contains(child) == true else { return }
        children[parent]?.removeAll { $0 == child }
        sessions.removeValue(forKey: child)
    }

    func closeSession(_ sessionId: String) {
        for child in children.removeValue(forKey: sessionId) ?? [] { sessions.removeValue(forKey: child) }
        sessions.removeValue(forKey: sessionId)?.finish()
    }

    /// Commands waiting for a reply (for tests: none may be left behind).
    var pendingCount: Int { pending.count }

    private func finish(_ id: Int, with result: Result<JSONValue, any Error>) {
        guard let entry = pending.removeValue(forKey: id) else { return }
        entry.timer?.cancel()
        entry.continuation.resume(with: result)
    }

    private func receive(_ inbound: Inbound) {
        switch inbound {
        case .endOfFile:
            browserGone("the browser exited")
        case .message(let message):
            if let id = message["id"]?.int {
                guard let entry = pending[id] else { return }
                if let error = message["error"] {
                    let text = error["message"]?.string ?? "error"
                    finish(id, with: .failure(BrowserError.protocolError(entry.method, text)))
                } else {
                    finish(id, with: .success(message["result"] ?? .object([:])))
                }
                return
            }
            guard let method = message["method"]?.string else { return }
            let params = message["params"] ?? .object([:])
            if let sessionId = message["sessionId"]?.string {
                sessions[sessionId]?.yield(.event(CDPEvent(method: method, params: params, sessionId: sessionId)))
            } else if method == "Target.detachedFromTarget", let sessionId = params["sessionId"]?.string {
                if let parent = children.first(where: { $0.value.contains(sessionId) })?.key {
                    closeChildSession(sessionId, parent: parent)
                } else if let continuation = sessions[sessionId] {
                    continuation.yield(.closed(BrowserError(.crashed, message: "the page's tab was closed")))
                    closeSession(sessionId)
                }
            }
        }
    }

    private func browserGone(_ reason: String) {
        guard closedError == nil else { return }
        let error = BrowserError.crashed(reason)
        closedError = error
        for id in Array(pending.keys) { finish(id, with: .failure(error)) }
        for continuation in sessions.values {
            continuation.yield(.closed(error))
            continuation.finish()
        }
        sessions.removeAll()
        children.removeAll()
    }

    /// Writes all of `bytes`; `false` when the browser is gone (`EPIPE`) or was terminated.
    private func write(_ bytes: [UInt8]) -> Bool {
        guard closedError == nil else { return false }
        return bytes.withUnsafeBytes { process.writeCommand($0) }
    }

    /// The reader thread: reads until end of file, then closes the descriptor it alone uses.
    private static func readLoop(fd: Int32, feed: AsyncStream<Inbound>.Continuation) {
        var framer = MessageFramer()
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)
        defer {
            chunk.deallocate()
            close(fd)
            feed.yield(.endOfFile)
            feed.finish()
        }
        while true {
            let n = read(fd, chunk.baseAddress!, chunk.count)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return }
            framer.append(UnsafeRawBufferPointer(rebasing: chunk[0..<n])) { message in
                if let value = try? JSONValue(parsing: Data(message)) { feed.yield(.message(value)) }
            }
        }
    }
}
