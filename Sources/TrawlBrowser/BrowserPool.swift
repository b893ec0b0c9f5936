import Foundation
import TrawlCore

/// One headless browser serving many pages: a tab per page, a browser context per page (cookies
/// and storage never pass from one job to the next), at most
/// ``BrowserConfiguration/maxPages`` open at once and the rest queued.
///
/// The browser starts with the first page, not before (a run that renders nothing never starts
/// one). A browser that dies — crashed, killed — fails its in-flight pages with
/// ``BrowserError/Code/crashed`` (retryable) and is started again for the next page.
/// ``shutdown()`` (or the pool's end) kills it; so does Trawl's own end, however it comes.
///
/// ```swift
/// let pool = BrowserPool(configuration: BrowserConfiguration(connectTo: ["::127.0.0.1:8080"]))
/// let page = try await pool.render(FetchRequest(url: url))
/// print(page.finalURL, page.responses.count, page.html.count)
/// await pool.shutdown()
/// ```
public actor BrowserPool {
    public nonisolated let configuration: BrowserConfiguration
    private var browser: Browser?
    private var launching: Task<Browser, any Error>?
    private var openPages = 0
    private var waiters: [(id: UUID, continuation: CheckedContinuation<Void, any Error>)] = []
    private var isShutDown = false
    /// Browsers started so far (the first, and one per restart).
    public private(set) var launches = 0
    /// The last launch's time from spawn to the browser's first reply.
    public private(set) var lastStartupTime: Duration?

    public init(configuration: BrowserConfiguration = BrowserConfiguration()) {
        self.configuration = configuration
    }

    /// The running browser's process id (also its process group), if one runs.
    public var browserProcessID: Int32? { browser.map { $0.process.pid } }

    /// Pages open right now (rendering, or closing their tab).
    public var openPageCount: Int { openPages }

    /// Starts the browser now, if none runs, instead of with the first page: for a caller that
    /// knows a page will need it (a host remembered as script-driven) and can overlap the ~0.1–0.3 s
    /// start with other work. Returns the time from spawn to the browser's first reply.
    @discardableResult
    public func start() async throws -> Duration {
        let browser = try await liveBrowser()
        return browser.startupTime
    }

    /// Loads `request.url` in a fresh tab and browser context and returns the page once it settled.
    /// - Parameters:
    ///   - onResponse: called with each XHR/fetch payload (JSON or HTML) as soon as its body is in.
    /// - Throws: ``BrowserError`` (`crashed` and `timedOut` are worth retrying), or
    ///   `CancellationError` — the page's tab closes either way.
    public nonisolated func render(
        _ request: FetchRequest, onResponse: @escaping @Sendable (Payload) -> Void = { _ in }
    ) async throws -> RenderedPage {
        try await acquireSlot()
        let browser: Browser
        do {
            browser = try await liveBrowser()
        } catch {
            await releaseSlot()
            throw error
        }
        let connection = browser.connection
        let timeout = configuration.commandTimeout
        var budget = configuration.pageBudget
        if let limit = request.timeout { budget = min(budget, limit) }
        var contextId: String?
        var targetId: String?
        var sessionId: String?
        let (stream, signals) = AsyncStream<PageSignal>.makeStream()
        let ticker = Task {
            while (try? await Task.sleep(for: .milliseconds(50))) != nil { signals.yield(.tick) }
        }
        // Closing the tab and its context happens after the page's answer, and holds the page's
        // slot until done: a page never waits for its own cleanup, the pool never over-commits.
        defer {
            ticker.cancel()
            signals.finish()
            Task { [contextId, targetId, sessionId] in
                if let sessionId { await connection.closeSession(sessionId) }
                if let targetId {
                    _ = try? await connection.send("Target.closeTarget", ["targetId": .string(targetId)], timeout: timeout)
                }
                if let contextId {
                    _ = try? await connection.send("Target.disposeBrowserContext", ["browserContextId": .string(contextId)], timeout: timeout)
                }
                await self.releaseSlot()
            }
        }
        do {
            do {
                contextId = try await connection.send("Target.createBrowserContext", timeout: timeout)["browserContextId"]?.string
            } catch BrowserError.Code.timedOut {
                // The browser process itself stopped answering (not one page): start another.
                await discard(browser)
                throw BrowserError.crashed("the browser stopped answering", url: request.url.absoluteString)
            }
            guard let contextId else { throw BrowserError.protocolError("Target.createBrowserContext", "no context id") }
            targetId = try await connection.send(
                "Target.createTarget", ["url": .string("about:blank"), "browserContextId": .string(contextId)], timeout: timeout
            )["targetId"]?.string
            guard let targetId else { throw BrowserError.protocolError("Target.createTarget", "no target id") }
            sessionId = try await connection.send(
                "Target.attachToTarget", ["targetId": .string(targetId), "flatten": .bool(true)], timeout: timeout
            )["sessionId"]?.string
            guard let sessionId else { throw BrowserError.protocolError("Target.attachToTarget", "no session id") }
            await connection.openSession(sessionId, continuation: signals)
            var page = PageLoad(
                connection: connection, configuration: configuration, sessionId: sessionId, targetId: targetId, url: request.url,
                budget: budget, signals: signals, onResponse: onResponse)
            return try await page.run(stream)
        } catch let error as BrowserError where error.url == nil {
            throw BrowserError(error.code, url: request.url.absoluteString, message: error.message)
        }
    }

    /// Kills the browser; pages in flight fail, queued pages fail with ``BrowserError/Code/closed``.
    public func shutdown() {
        isShutDown = true
        for waiter in waiters { waiter.continuation.resume(throwing: BrowserError.closed) }
        waiters.removeAll()
        browser?.process.terminate()
        browser = nil
    }

    deinit { browser?.process.terminate() }

    private func acquireSlot() async throws {
        if isShutDown { throw BrowserError.closed }
        if openPages < configuration.maxPages {
            openPages += 1
            return
        }
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                waiters.append((id, continuation))
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    /// Hands the slot to the next page waiting, or frees it.
    private func releaseSlot() {
        if waiters.isEmpty {
            openPages -= 1
        } else {
            waiters.removeFirst().continuation.resume()
        }
    }

    private func cancelWaiter(_ id: UUID) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
    }

    /// Kills `browser` if it is still the pool's: the next page starts a new one.
    private func discard(_ browser: Browser) {
        browser.process.terminate()
        if self.browser === browser { self.browser = nil }
    }

    /// The running browser, started (or restarted) when there is none.
    private func liveBrowser() async throws -> Browser {
        if isShutDown { throw BrowserError.closed }
        if let browser {
            if await !browser.connection.isClosed { return browser }
            // Dead: reap it (and its group) before starting the next.
            browser.process.terminate()
            if self.browser === browser { self.browser = nil }
        }
        if let launching { return try await launching.value }
        let configuration = configuration
        let task = Task { try await Browser.launch(configuration) }
        launching = task
        do {
            let launched = try await task.value
            launching = nil
            if isShutDown {
                launched.process.terminate()
                throw BrowserError.closed
            }
            browser = launched
            launches += 1
            lastStartupTime = launched.startupTime
            return launched
        } catch {
            launching = nil
            throw error
        }
    }
}
