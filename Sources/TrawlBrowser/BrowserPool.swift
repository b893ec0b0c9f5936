import Foundation
public import TrawlCore

/// One headless browser serving many pages, at most ``BrowserConfiguration/maxPages`` open at
/// once and the rest queued. With ``BrowserIsolation/page`` each page gets a tab and a browser
/// context of its own (cookies and storage never pass from one job to the next); with
/// ``BrowserIsolation/host`` a tab that served a page is cleared (``PreparedTab/cleaned(origins:timeout:)``)
/// and kept for the next page of the same host, whose renderer is then already running.
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
    /// Consulted in order for every request a page makes that is not a blocked resource type.
    public nonisolated let interceptors: [RequestInterceptor]
    /// What each tab's `Fetch` domain pauses, from the interceptors and the blocked types.
    private nonisolated let paused: PausedRequests
    private var browser: Browser?
    private var launching: Task<Browser, any Error>?
    /// The next page's tab, being prepared (or ready) while pages run.
    private var spare: (browser: Browser, tab: Task<Result<PreparedTab, BrowserError>, Never>)?
    /// Cleared tabs kept for the next page of their host (``BrowserIsolation/host``), oldest first.
    private var idleTabs: [(host: String, tab: PreparedTab)] = []
    private var openPages = 0
    private var waiters: [(id: UUID, continuation: CheckedContinuation<Void, any Error>)] = []
    private var isShutDown = false
    /// Browsers started so far (the first, and one per restart).
    public private(set) var launches = 0
    /// Pages served by a tab that had served an earlier page of their host (``BrowserIsolation/host``).
    public private(set) var reusedTabs = 0
    /// The last launch's time from spawn to the browser's first reply.
    public private(set) var lastStartupTime: Duration?

    /// - Parameters:
    ///   - interceptors: asked in order about each request pages make (answer from a recording,
    ///     refuse an address, record the response); with none, every request goes to the network.
    public init(configuration: BrowserConfiguration = BrowserConfiguration(), interceptors: [RequestInterceptor] = []) {
        self.configuration = configuration
        self.interceptors = interceptors
        paused = PausedRequests(interceptors: interceptors, configuration: configuration)
    }

    /// The running browser's process id (also its process group), if one runs.
    public var browserProcessID: Int32? { browser.map { $0.process.pid } }

    /// Commands sent to the running browser still waiting for their reply (none once pages are done).
    var pendingCommandCount: Int {
        get async { await browser?.connection.pendingCount ?? 0 }
    }

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

    /// Loads `request.url` in a fresh tab and browser context (or, with ``BrowserIsolation/host``,
    /// a cleared tab that served its host before) and returns the page once it settled.
    /// - Parameters:
    ///   - onResponse: called with each XHR/fetch payload (JSON or HTML) as soon as its body is in.
    /// - Throws: ``BrowserError`` (`crashed` and `timedOut` are worth retrying), the error of an
    ///   interceptor that refused the page's document (``InterceptionDecision/refuse(_:error:)``),
    ///   or `CancellationError` — the page's tab closes either way.
    public nonisolated func render(
        _ request: FetchRequest, onResponse: @escaping @Sendable (Payload) -> Void = { _ in }
    ) async throws -> RenderedPage {
        try await acquireSlot()
        let timeout = configuration.commandTimeout
        let host = configuration.isolation == .host ? Self.hostKey(request.url) : nil
        let browser: Browser
        let tab: PreparedTab
        do {
            (browser, tab) = try await openTab(host: host)
        } catch let error as BrowserError {
            // A dead or frozen browser: the next page starts another.
            if error.code == .crashed, let browser = await self.browser { await discard(browser) }
            await releaseSlot()
            throw BrowserError(error.code, url: request.url.absoluteString, message: error.message)
        } catch {
            await releaseSlot()
            throw error
        }
        var budget = configuration.pageBudget
        if let limit = request.timeout { budget = min(budget, limit) }
        let signals = tab.signals
        let ticker = Task {
            while (try? await Task.sleep(for: .milliseconds(50))) != nil { signals.yield(.tick) }
        }
        // The origins a page that ended well requested: its tab may serve the next page of its host.
        var reusable: Set<String>?
        // Closing (or clearing) the tab happens after the page's answer, and holds the page's
        // slot until done: a page never waits for its own cleanup, the pool never over-commits.
        defer {
            ticker.cancel()
            signals.finish()
            let origins = reusable
            Task {
                await self.tabClosedOrKept(tab)
                if let host, let origins, let cleaned = await tab.cleaned(origins: origins, timeout: timeout) {
                    await self.keep(cleaned, host: host)
                } else {
                    await tab.close(timeout: timeout)
                }
                await self.releaseSlot()
            }
        }
        do {
            var page = PageLoad(
                connection: browser.connection, configuration: configuration, sessionId: tab.sessionId, targetId: tab.targetId,
                url: request.url, budget: budget, signals: signals, interceptors: interceptors, onResponse: onResponse,
                // The next page's tab is prepared once this one has loaded, not beside its
                // start: a renderer starting then would take a core from this page's first
                // payloads (the first media of a run), and the page's settling is idle time.
                onLoad: { Task { await self.prepareSpare(on: browser) } })
            let rendered = try await page.run(tab.stream)
            reusable = page.origins
            return rendered
        } catch let error as BrowserError {
            // A renderer seldom dies alone (memory ran short, or the browser lost its renderers):
            // the spare tab prepared beside it is not trusted with the next page.
            if error.code == .crashed { await dropSpare(of: browser) }
            throw error.url == nil ? BrowserError(error.code, url: request.url.absoluteString, message: error.message) : error
        }
    }

    /// Kills the browser; pages in flight fail, queued pages fail with ``BrowserError/Code/closed``.
    public func shutdown() {
        isShutDown = true
        for waiter in waiters { waiter.continuation.resume(throwing: BrowserError.closed) }
        waiters.removeAll()
        spare = nil
        idleTabs.removeAll()
        browser?.process.terminate()
        browser = nil
    }

    /// The key pages share a tab by: host and port of the page's URL.
    static func hostKey(_ url: URL) -> String {
        (url.host?.lowercased() ?? "") + (url.port.map { ":\($0)" } ?? "")
    }

    /// Context ids of the tabs serving pages now (for tests).
    private(set) var openContextIds: Set<String> = []

    /// Sends a browser-level command to the running browser (for tests: to grant a page a
    /// permission as a person could, mid-page).
    func browserCommand(_ method: String, _ params: [String: JSONValue]) async throws -> JSONValue {
        try await liveBrowser().connection.send(method, params, timeout: configuration.commandTimeout)
    }

    private func tabClosedOrKept(_ tab: PreparedTab) { openContextIds.remove(tab.contextId) }

    /// Keeps a cleared tab for its host's next page; the oldest kept tab beyond
    /// ``BrowserConfiguration/maxPages`` (or one of a browser no longer the pool's) is closed.
    private func keep(_ tab: PreparedTab, host: String) {
        guard !isShutDown, browser === tab.browser else {
            Task { await tab.close(timeout: configuration.commandTimeout) }
            return
        }
        idleTabs.append((host, tab))
        while idleTabs.count > configuration.maxPages {
            let oldest = idleTabs.removeFirst().tab
            Task { await oldest.close(timeout: configuration.commandTimeout) }
        }
    }

    /// A kept tab of `host` on `browser`, taken from the kept ones.
    private func takeIdleTab(host: String, on browser: Browser) -> PreparedTab? {
        idleTabs.removeAll { $0.tab.browser !== browser }
        guard let index = idleTabs.lastIndex(where: { $0.host == host }) else { return nil }
        reusedTabs += 1
        return idleTabs.remove(at: index).tab
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

    /// A tab on the live browser. When the browser turns out dead or frozen before this page has
    /// a tab (found by the spare, or by opening this page's own tab), it is replaced and the
    /// page gets a tab on the new one — once: a new browser that fails too fails the page.
    private func openTab(host: String?) async throws -> (Browser, PreparedTab) {
        let opened = try await openOrReuseTab(host: host)
        openContextIds.insert(opened.1.contextId)
        return opened
    }

    private func openOrReuseTab(host: String?) async throws -> (Browser, PreparedTab) {
        let browser = try await liveBrowser()
        if let host, let tab = takeIdleTab(host: host, on: browser) { return (browser, tab) }
        do {
            return (browser, try await takeTab(on: browser))
        } catch let error where error is SpareTabFailure || (error as? BrowserError)?.code == .crashed {
            discard(browser)
            let replacement = try await liveBrowser()
            return (replacement, try await takeTab(on: replacement))
        }
    }

    /// The spare tab if it is ready or being prepared on `browser`, else a new one.
    private func takeTab(on browser: Browser) async throws -> PreparedTab {
        if let spare, spare.browser === browser {
            self.spare = nil
            switch await spare.tab.value {
            case .success(let tab): return tab
            case .failure(let error) where error.code == .crashed: throw SpareTabFailure()
            case .failure: break
            }
        }
        return try await PreparedTab.open(on: browser, configuration: configuration, paused: paused)
    }

    /// Starts preparing the next page's tab, unless one is ready or on its way.
    private func prepareSpare(on browser: Browser) {
        guard configuration.preparesNextTab, !isShutDown, spare == nil, self.browser === browser else { return }
        // Kept tabs serve the next pages of their hosts; a spare is only for a page of a new host,
        // worth a renderer only while the pool has room for another tab.
        if configuration.isolation == .host, openPages + idleTabs.count >= configuration.maxPages { return }
        let configuration = configuration
        let paused = paused
        spare = (
            browser,
            Task {
                do {
                    return .success(try await PreparedTab.open(on: browser, configuration: configuration, paused: paused))
                } catch let error as BrowserError {
                    return .failure(error)
                } catch {
                    return .failure(BrowserError(.closed, message: "the spare tab was cancelled"))
                }
            }
        )
    }

    /// Closes the spare tab prepared on `browser`, if any: the next page opens its own.
    private func dropSpare(of browser: Browser) {
        guard let spare, spare.browser === browser else { return }
        self.spare = nil
        let timeout = configuration.commandTimeout
        Task {
            if case .success(let tab) = await spare.tab.value { await tab.close(timeout: timeout) }
        }
    }

    /// Kills `browser` if it is still the pool's: the next page starts a new one.
    private func discard(_ browser: Browser) {
        browser.process.terminate()
        if spare?.browser === browser { spare = nil }
        idleTabs.removeAll { $0.tab.browser === browser }
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

/// The spare tab could not be opened because the browser died or froze.
private struct SpareTabFailure: Error {}
