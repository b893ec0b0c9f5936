import TrawlCore

/// A tab ready for a page: a browser context of its own (cookies and storage start empty), a
/// blank target attached with a flattened session, `Network`, `Page` and `Fetch` (see ``PausedRequests``) enabled, and
/// out-of-process iframes attached as they appear (their requests are seen and paused too).
///
/// Preparing one costs a renderer start (~0.1 s); the pool prepares the next page's tab while the
/// current page settles.
struct PreparedTab: Sendable {
    let browser: Browser
    let contextId: String
    let targetId: String
    let sessionId: String
    /// The session's events (and the page's own signals), from the moment it was attached.
    let stream: AsyncStream<PageSignal>
    let signals: AsyncStream<PageSignal>.Continuation

    /// Opens a tab on `browser`. A browser that does not answer `Target.createBrowserContext` in
    /// time fails with ``BrowserError/Code/crashed``: it is the process, not a page, that hangs.
    /// - Parameter paused: the requests (and responses) its `Fetch` domain pauses.
    static func open(on browser: Browser, configuration: BrowserConfiguration, paused: PausedRequests) async throws -> PreparedTab {
        let connection = browser.connection
        let timeout = configuration.commandTimeout
        let contextId: String
        do {
            guard let id = try await connection.send("Target.createBrowserContext", timeout: timeout)["browserContextId"]?.string else {
                throw BrowserError.protocolError("Target.createBrowserContext", "no context id")
            }
            contextId = id
        } catch BrowserError.Code.timedOut {
            throw BrowserError.crashed("the browser stopped answering")
        }
        var targetId: String?
        var sessionId: String?
        let (stream, signals) = AsyncStream<PageSignal>.makeStream()
        do {
            targetId = try await connection.send(
                "Target.createTarget", ["url": .string("about:blank"), "browserContextId": .string(contextId)], timeout: timeout
            )["targetId"]?.string
            guard let targetId else { throw BrowserError.protocolError("Target.createTarget", "no target id") }
            sessionId = try await connection.send(
                "Target.attachToTarget", ["targetId": .string(targetId), "flatten": .bool(true)], timeout: timeout
            )["sessionId"]?.string
            guard let sessionId else { throw BrowserError.protocolError("Target.attachToTarget", "no session id") }
            await connection.openSession(sessionId, continuation: signals)
            try await enableDomains(connection, sessionId: sessionId, configuration: configuration, paused: paused)
            return PreparedTab(
                browser: browser, contextId: contextId, targetId: targetId, sessionId: sessionId, stream: stream, signals: signals)
        } catch {
            signals.finish()
            await close(connection, contextId: contextId, targetId: targetId, sessionId: sessionId, timeout: timeout)
            throw error
        }
    }

    /// More origins than this and a tab is closed rather than cleared origin by origin.
    static let maxClearedOrigins = 64

    /// The tab that served a page, made ready for the next page of the same host
    /// (``BrowserIsolation/host``), or `nil` when any step failed or timed out (close it then).
    ///
    /// In order: the page's scripts are stopped (`Emulation.setScriptExecutionDisabled`) and its
    /// main origin's session storage cleared (it belongs to the tab, and no origin-wide clear
    /// reaches it); the tab goes to `about:blank` (the page is gone: nothing of it runs or writes
    /// after the clear); then, in one round trip, cookies, the HTTP cache, the storage of every
    /// origin in `origins` (local storage, IndexedDB, Cache Storage, service workers, file
    /// systems…), the context's permissions, the tab's history and `window.name`; scripts are
    /// allowed again. Events of the old page that arrive meanwhile are dropped: the next page
    /// gets a new event stream.
    /// - Parameter origins: every origin the page requested (`scheme://host[:port]`).
    func cleaned(origins: Set<String>, timeout: Duration) async -> PreparedTab? {
        guard origins.count <= Self.maxClearedOrigins else { return nil }
        let connection = browser.connection
        await connection.closeSession(sessionId)
        func send(_ method: String, _ params: [String: JSONValue] = [:], browserLevel: Bool = false) async throws -> JSONValue {
            try await connection.send(method, params, sessionId: browserLevel ? nil : sessionId, timeout: timeout)
        }
        do {
            _ = try await send("Emulation.setScriptExecutionDisabled", ["value": .bool(true)])
            _ = try await send("Runtime.evaluate", ["expression": .string("try { sessionStorage.clear(); } catch (e) {}")])
            let navigation = try await send("Page.navigate", ["url": .string("about:blank")])
            if let error = navigation["errorText"]?.string, !error.isEmpty { return nil }
            try await withThrowingTaskGroup(of: JSONValue.self) { group in
                group.addTask { try await send("Network.clearBrowserCookies") }
                group.addTask { try await send("Network.clearBrowserCache") }
                for origin in origins {
                    group.addTask { try await send("Storage.clearDataForOrigin", ["origin": .string(origin), "storageTypes": .string("all")]) }
                }
                group.addTask { try await send("Browser.resetPermissions", ["browserContextId": .string(contextId)], browserLevel: true) }
                group.addTask { try await send("Runtime.evaluate", ["expression": .string("window.name = ''")]) }
                group.addTask { try await send("Emulation.setScriptExecutionDisabled", ["value": .bool(false)]) }
                try await group.waitForAll()
            }
            // Answered "not attached to an active page" when sent while about:blank is still
            // committing: best effort (the test of isolation reads `history.length`).
            _ = try? await send("Page.resetNavigationHistory")
        } catch {
            return nil
        }
        let (stream, signals) = AsyncStream<PageSignal>.makeStream()
        await connection.openSession(sessionId, continuation: signals)
        return PreparedTab(browser: browser, contextId: contextId, targetId: targetId, sessionId: sessionId, stream: stream, signals: signals)
    }

    /// Closes the tab and disposes of its context (which ends its renderer).
    func close(timeout: Duration) async {
        signals.finish()
        await Self.close(browser.connection, contextId: contextId, targetId: targetId, sessionId: sessionId, timeout: timeout)
    }

    private static func close(_ connection: CDPConnection, contextId: String, targetId: String?, sessionId: String?, timeout: Duration) async {
        if let sessionId { await connection.closeSession(sessionId) }
        if let targetId {
            _ = try? await connection.send("Target.closeTarget", ["targetId": .string(targetId)], timeout: timeout)
        }
        _ = try? await connection.send("Target.disposeBrowserContext", ["browserContextId": .string(contextId)], timeout: timeout)
    }

    /// Sent back to back: the session runs them in order, one round trip for all four (and the
    /// script counting the page's pending work, when pages may settle early or wait for timers).
    private static func enableDomains(
        _ connection: CDPConnection, sessionId: String, configuration: BrowserConfiguration, paused: PausedRequests
    ) async throws {
        let timeout = configuration.commandTimeout
        async let network = connection.send("Network.enable", networkParameters(configuration), sessionId: sessionId, timeout: timeout)
        async let page = connection.send("Page.enable", sessionId: sessionId, timeout: timeout)
        async let fetch = connection.send("Fetch.enable", paused.fetchParameters, sessionId: sessionId, timeout: timeout)
        // Out-of-process iframes (another site's frame runs in its own renderer) become targets
        // of their own: attached here, held until ``PageLoad`` enabled their domains, so none of
        // their requests goes by unseen.
        async let attach = connection.send(
            "Target.setAutoAttach", ["autoAttach": .bool(true), "waitForDebuggerOnStart": .bool(true), "flatten": .bool(true)],
            sessionId: sessionId, timeout: timeout)
        // In every frame, before the page's own scripts (see ``ScriptActivity``).
        async let activity = installScriptActivity(connection, sessionId: sessionId, configuration: configuration)
        _ = try await (network, page, fetch, attach, activity)
    }

    private static func installScriptActivity(
        _ connection: CDPConnection, sessionId: String, configuration: BrowserConfiguration
    ) async throws -> JSONValue? {
        guard configuration.idleProbeAfter != nil || configuration.pendingTimerWait != nil else { return nil }
        let source = ScriptActivity.source(quietWindow: configuration.quietWindow, timerWait: configuration.pendingTimerWait)
        return try await connection.send(
            "Page.addScriptToEvaluateOnNewDocument", ["source": .string(source)],
            sessionId: sessionId, timeout: configuration.commandTimeout)
    }

    /// `Network.enable` with buffers big enough for the bodies a page keeps.
    static func networkParameters(_ configuration: BrowserConfiguration) -> [String: JSONValue] {
        [
            "maxResourceBufferSize": .number(Double(max(configuration.maxBodyBytes, 1 << 20))),
            "maxTotalBufferSize": .number(Double(max(configuration.maxBodyBytes * 4, 64 << 20))),
        ]
    }
}
