import Foundation
import TrawlCore

/// One page in one prepared tab (see ``PreparedTab``): navigation, the requests it makes, settling, scrolling and the DOM.
///
/// Everything the page sends that may take a while (`Page.navigate`, response bodies) runs in the
/// background and reports back through the page's signal stream, so the loop keeps answering
/// paused requests (`Fetch.requestPaused`) and never deadlocks on its own navigation.
struct PageLoad {
    let connection: CDPConnection
    let configuration: BrowserConfiguration
    let sessionId: String
    let url: URL
    /// No command of this page may wait past this instant.
    let deadline: ContinuousClock.Instant
    /// Settling stops here, leaving time to take the DOM before ``deadline``.
    let settleDeadline: ContinuousClock.Instant
    let signals: AsyncStream<PageSignal>.Continuation
    /// Asked about each request that is not a blocked resource type; shown the responses.
    let interceptors: [RequestInterceptor]
    /// Called with each XHR/fetch payload as soon as its body is in.
    let onResponse: @Sendable (Payload) -> Void
    /// Called once, at the page's first load event.
    let onLoad: @Sendable () -> Void

    private let clock = ContinuousClock()
    private(set) var mainFrameId: String
    private var loaderId: String?
    private var loadReported = false
    /// When the page counts as settled (network quiet, the scripts' word, timers about to fetch).
    var settle: SettleStateMachine
    private var settledEarly = false
    private var firstURLs: [String: String] = [:]
    private var candidates: [String: PayloadInfo] = [:]
    private var finalURL: URL
    private var status = 200
    private var headers: HTTPHeaders = [:]
    private var responses: [Payload] = []
    private var blocked: [String] = []
    /// Out-of-process iframes attached to the page (their sessions).
    var frameSessions: [String] = []
    /// The child session of a request seen in an iframe's own target, for its body.
    private var requestSessions: [String: String] = [:]
    /// Every origin the page requested (`scheme://host[:port]`), its frames' and workers' too:
    /// what a reused tab clears (``PreparedTab/cleaned(origins:timeout:)``).
    private(set) var origins: Set<String> = []
    /// When each request now waiting for its response was paused (for recorded timings).
    var pausedAt: [String: Date] = [:]
    /// The interceptors' work on paused requests (a guarded fetch may be long): cancelled when the
    /// page ends, which stops their transfers.
    let interceptions = InterceptionTasks()
    /// A tick due when a page with media in may settle (``SettleStateMachine/mediaSettleInstant(after:)``):
    /// the pool's periodic tick alone left such a page waiting up to a period more.
    private var wake: (at: ContinuousClock.Instant, task: Task<Void, Never>)?

    init(
        connection: CDPConnection, configuration: BrowserConfiguration, sessionId: String, targetId: String, url: URL,
        budget: Duration, signals: AsyncStream<PageSignal>.Continuation, interceptors: [RequestInterceptor] = [],
        onResponse: @escaping @Sendable (Payload) -> Void, onLoad: @escaping @Sendable () -> Void = {}
    ) {
        self.connection = connection
        self.configuration = configuration
        self.sessionId = sessionId
        self.url = url
        let now = ContinuousClock.now
        deadline = now + budget
        // Taking the DOM is quick unless the page's main thread is stuck; a fifth of the budget
        // (0.3–3 s) is kept for it.
        let reserve = min(max(budget / 5, .milliseconds(300)), .seconds(3))
        settleDeadline = now + budget - reserve
        self.signals = signals
        self.interceptors = interceptors
        self.onResponse = onResponse
        self.onLoad = onLoad
        mainFrameId = targetId  // a tab's main frame id is its target id
        settle = SettleStateMachine(configuration: configuration, start: now)
        finalURL = url
    }

    /// Loads the page and returns it once settled (or at the budget), scrolled and serialized.
    mutating func run(_ stream: AsyncStream<PageSignal>) async throws -> RenderedPage {
        defer {
            interceptions.cancelAll()
            wake?.task.cancel()
        }
        var iterator = stream.makeAsyncIterator()
        startNavigation()
        var settled = try await waitUntilSettled(&iterator, notBefore: nil)
        guard settle.navigated else { throw BrowserError.timedOut("Page.navigate", url: url.absoluteString) }
        var scrolls = 0
        if settled {
            while scrolls < configuration.scrollCount {
                let before = try await evaluate("(() => { const h = document.documentElement.scrollHeight; window.scrollTo(0, h); return h; })()")
                let activityBefore = settle.activityCount
                settled = try await waitUntilSettled(&iterator, notBefore: clock.now)
                let after = try await evaluate("document.documentElement.scrollHeight")
                guard (after.double ?? 0) > (before.double ?? 0) || settle.activityCount != activityBefore else { break }
                scrolls += 1
                if !settled { break }
            }
        }
        // The frames are read beside the page's own DOM: neither waits for the other's round trip.
        let page = self
        async let frameReads = page.frameSnapshots()
        let snapshot = try await evaluate(DOMSnapshot.pageExpression)
        if let href = snapshot[0]?.string, let final = URL(string: href) { finalURL = final }
        let frames = await frameReads
        return RenderedPage(
            requestURL: url, finalURL: finalURL, status: status, headers: headers,
            html: Data((snapshot[1]?.string ?? "").utf8), responses: responses, blockedRequests: blocked,
            scrolls: scrolls, settled: settled, settledEarly: settledEarly, frames: frames)
    }

    func remaining() -> Duration { max(deadline - clock.now, .milliseconds(1)) }

    private func startNavigation() {
        send(.navigate, "Page.navigate", ["url": .string(url.absoluteString)])
    }

    /// Sends a command in the background; its reply comes back as a signal.
    /// - Parameter session: the iframe session it belongs to; `nil` for the page's own.
    private func send(_ command: PageCommand, _ method: String, _ params: [String: JSONValue], session: String? = nil) {
        let connection = connection
        let sessionId = session ?? sessionId
        let signals = signals
        let timeout = remaining()
        Task {
            do {
                let result = try await connection.send(method, params, sessionId: sessionId, timeout: timeout)
                signals.yield(.reply(command, .success(result)))
            } catch let error as BrowserError {
                signals.yield(.reply(command, .failure(error)))
            } catch {
                signals.yield(.reply(command, .failure(BrowserError(.closed, message: "\(method) was cancelled"))))
            }
        }
    }

    /// Sends a command whose reply nobody needs (continuing or failing a paused request).
    /// - Parameter session: the iframe session it belongs to; `nil` for the page's own.
    func post(_ method: String, _ params: [String: JSONValue], session: String? = nil) {
        let connection = connection
        let sessionId = session ?? sessionId
        let timeout = min(configuration.commandTimeout, remaining())
        Task { _ = try? await connection.send(method, params, sessionId: sessionId, timeout: timeout) }
    }

    /// Runs `expression` in the page and returns its value; a page whose main thread never
    /// yields fails with ``BrowserError/Code/scriptHung``.
    private func evaluate(_ expression: String) async throws -> JSONValue {
        do {
            let result = try await connection.send(
                "Runtime.evaluate", ["expression": .string(expression), "returnByValue": .bool(true)],
                sessionId: sessionId, timeout: remaining())
            if let exception = result["exceptionDetails"] {
                throw BrowserError.protocolError("Runtime.evaluate", exception["text"]?.string ?? "exception")
            }
            return result[path: "result", "value"] ?? .null
        } catch BrowserError.Code.timedOut {
            throw BrowserError.scriptHung(url: finalURL.absoluteString)
        }
    }

    /// Handles signals until the page is settled (`true`) or the settle deadline passes (`false`).
    /// - Parameter notBefore: activity before this instant does not count as quiet time (a scroll).
    private mutating func waitUntilSettled(_ iterator: inout AsyncStream<PageSignal>.Iterator, notBefore: ContinuousClock.Instant?) async throws -> Bool {
        if let notBefore { settle.scrolled(at: notBefore) }
        while true {
            guard let signal = await iterator.next() else {
                try Task.checkCancellation()
                throw BrowserError.crashed("the page's session ended", url: url.absoluteString)
            }
            try Task.checkCancellation()
            try handle(signal)
            switch settle.next(now: clock.now) {
            case .settled(let early):
                if early { settledEarly = true }
                return true
            case .probeScripts(let activity):
                send(.idleProbe(activity: activity), "Runtime.evaluate", ["expression": .string(ScriptActivity.probe), "returnByValue": .bool(true)])
            case .askForTimers(let activity):
                send(.timerProbe(activity: activity), "Runtime.evaluate", ["expression": .string(ScriptActivity.timerProbe), "returnByValue": .bool(true)])
            case .wait:
                break
            }
            if clock.now >= settleDeadline { return false }
            scheduleWake()
        }
    }

    /// Makes sure a tick comes when the page may settle on its media, unless one is due before
    /// (which schedules the next in turn).
    private mutating func scheduleWake() {
        let now = clock.now
        guard let at = settle.mediaSettleInstant(after: now).map({ min($0, settleDeadline) }) else { return }
        if let wake, wake.at > now, wake.at <= at { return }
        wake?.task.cancel()
        let signals = signals
        wake = (at, Task { if (try? await Task.sleep(until: at, clock: .continuous)) != nil { signals.yield(.tick) } })
    }

    private mutating func handle(_ signal: PageSignal) throws {
        switch signal {
        case .tick:
            return
        case .reply(.idleProbe(let activity), let result):
            // `[the pending count or -1, whether the DOM shows media]`.
            let value = (try? result.get())?[path: "result", "value"]
            settle.probeAnswered(pending: value?[0]?.double, hasMedia: value?[1]?.bool ?? false, activity: activity)
        case .reply(.timerProbe(let activity), let result):
            // `[milliseconds to the next timeout or -1, whether the DOM shows media]`.
            let value = (try? result.get())?[path: "result", "value"]
            let next = value?[0]?.double.flatMap { $0 >= 0 ? Duration.milliseconds($0) : nil }
            settle.timersAnswered(nextTimer: next, hasMedia: value?[1]?.bool ?? false, activity: activity, now: clock.now)
        case .closed(let error):
            throw BrowserError(error.code, url: url.absoluteString, message: error.message)
        case .refused(let error):
            throw error
        case .reply(.navigate, let result):
            let reply = try result.get()
            if let errorText = reply["errorText"]?.string, !errorText.isEmpty {
                throw BrowserError.navigationFailed(errorText, url: url.absoluteString)
            }
            if let frame = reply["frameId"]?.string { mainFrameId = frame }
            if let loader = reply["loaderId"]?.string { loaderId = loader }
            settle.navigationAnswered()
        case .reply(.responseBody(let requestId), let result):
            guard let info = candidates.removeValue(forKey: requestId), case .success(let reply) = result,
                let text = reply["body"]?.string
            else {
                settle.bodyArrived(namesMedia: false)
                return
            }
            let body = reply["base64Encoded"]?.bool == true ? (Data(base64Encoded: text) ?? Data()) : Data(text.utf8)
            guard body.count <= configuration.maxBodyBytes else {
                settle.bodyArrived(namesMedia: false)
                return
            }
            settle.bodyArrived(namesMedia: info.isJSON && MediaMention.appears(in: body))
            let payload = Payload(body: body, info: info)
            responses.append(payload)
            onResponse(payload)
        case .event(let event):
            try handle(event)
        }
    }

    private mutating func handle(_ event: CDPEvent) throws {
        let params = event.params
        // An iframe's own target: its commands go to its session.
        let child = event.sessionId == sessionId ? nil : event.sessionId
        switch event.method {
        case "Fetch.requestPaused":
            guard let id = params["requestId"]?.string else { return }
            if params["responseStatusCode"] != nil || params["responseErrorReason"] != nil {
                observeResponse(id, params, session: child)
                return
            }
            let type = params["resourceType"]?.string ?? ""
            let requestURL = params[path: "request", "url"]?.string ?? ""
            if configuration.blockedResourceTypes.contains(type) {
                blocked.append(requestURL)
                post("Fetch.failRequest", ["requestId": .string(id), "errorReason": .string("BlockedByClient")], session: child)
            } else if !Self.mayLoad(requestURL) {
                blocked.append(requestURL)
                post("Fetch.failRequest", ["requestId": .string(id), "errorReason": .string("AccessDenied")], session: child)
            } else if interceptors.isEmpty {
                post("Fetch.continueRequest", ["requestId": .string(id)], session: child)
            } else {
                intercept(id, params, session: child)
            }
        case "Target.attachedToTarget":
            guard let childSession = params["sessionId"]?.string else { return }
            attach(childSession, type: params[path: "targetInfo", "type"]?.string ?? "")
        case "Target.detachedFromTarget":
            guard let childSession = params["sessionId"]?.string else { return }
            frameSessions.removeAll { $0 == childSession }
            let connection = connection
            let parent = sessionId
            Task { await connection.closeChildSession(childSession, parent: parent) }
        case "Network.requestWillBeSent":
            guard let id = params["requestId"]?.string else {
                settle.noteActivity(now: clock.now)
                return
            }
            settle.requestStarted(id, now: clock.now)
            if let requested = params[path: "request", "url"]?.string {
                if firstURLs[id] == nil { firstURLs[id] = requested }
                noteOrigin(requested)
            }
        case "Network.responseReceived":
            settle.noteActivity(now: clock.now)
            guard let id = params["requestId"]?.string, let response = params["response"] else { return }
            let type = params["type"]?.string
            if type == "Document", params["frameId"]?.string == mainFrameId {
                status = response["status"]?.int ?? status
                headers = Self.headers(response["headers"])
                return
            }
            // The main frame's responses belong to its current navigation (a script redirect's
            // late ones do not); an iframe's are the page's whichever its loader.
            let current = child != nil || params["frameId"]?.string != mainFrameId || loaderId == nil || params["loaderId"]?.string == loaderId
            guard type == "XHR" || type == "Fetch", current,
                let responseURL = response["url"]?.string.flatMap(URL.init(string:))
            else { return }
            if let child { requestSessions[id] = child }
            let info = PayloadInfo(
                url: responseURL, requestURL: firstURLs[id].flatMap(URL.init(string:)) ?? responseURL,
                status: response["status"]?.int ?? 200, headers: Self.headers(response["headers"]),
                contentType: response["mimeType"]?.string, origin: .browserXHR)
            if info.isJSON || info.isHTML { candidates[id] = info }
        case "Network.loadingFinished":
            guard let id = params["requestId"]?.string else {
                settle.noteActivity(now: clock.now)
                return
            }
            settle.requestEnded(id, now: clock.now)
            firstURLs.removeValue(forKey: id)
            guard candidates[id] != nil else { return }
            if let length = params["encodedDataLength"]?.double, length > Double(configuration.maxBodyBytes) {
                candidates.removeValue(forKey: id)
                requestSessions.removeValue(forKey: id)
                return
            }
            settle.bodyRequested()
            send(.responseBody(requestId: id), "Network.getResponseBody", ["requestId": .string(id)], session: requestSessions.removeValue(forKey: id))
        case "Network.loadingFailed":
            guard let id = params["requestId"]?.string else {
                settle.noteActivity(now: clock.now)
                return
            }
            settle.requestEnded(id, now: clock.now)
            firstURLs.removeValue(forKey: id)
            candidates.removeValue(forKey: id)
            requestSessions.removeValue(forKey: id)
        case "Network.dataReceived":
            settle.noteActivity(now: clock.now)
        case "Page.frameStartedLoading":
            if params["frameId"]?.string == mainFrameId { settle.frameStartedLoading(now: clock.now) }
        case "Page.frameNavigated":
            guard let frame = params["frame"], frame["parentId"] == nil else { return }
            if let id = frame["id"]?.string { mainFrameId = id }
            if let loader = frame["loaderId"]?.string { loaderId = loader }
            if let href = frame["url"]?.string, let final = URL(string: href) { finalURL = final }
            settle.noteActivity(now: clock.now)
        case "Page.domContentEventFired":
            settle.domContentLoaded()
        case "Page.loadEventFired":
            if !loadReported { onLoad() }
            loadReported = true
            settle.loaded()
        case "Page.javascriptDialogOpening":
            // alert(), confirm(), prompt() and beforeunload would stop the page's main thread
            // until a person answers: dismiss each at once (accepting, as a reader clicking OK).
            post("Page.handleJavaScriptDialog", ["accept": .bool(true)])
        case "Inspector.targetCrashed":
            throw BrowserError(.crashed, url: url.absoluteString, message: "the page's renderer crashed")
        default:
            return
        }
    }

    /// Records the origin of an `http(s)` URL (the others keep no storage a later page could read).
    private mutating func noteOrigin(_ url: String) {
        guard origins.count <= PreparedTab.maxClearedOrigins, let components = URLComponents(string: url),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else { return }
        let port = components.port.map { ":\($0)" } ?? ""
        let name = host.contains(":") && !host.hasPrefix("[") ? "[\(host.lowercased())]" : host.lowercased()
        origins.insert("\(scheme)://\(name)\(port)")
    }

    /// Only the web's own schemes: a page may not read `file:` or other local URLs.
    private static func mayLoad(_ url: String) -> Bool {
        let lowered = url.prefix(8).lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || lowered.hasPrefix("data:") || lowered.hasPrefix("blob:")
    }

    static func headers(_ value: JSONValue?) -> HTTPHeaders {
        guard let object = value?.object else { return [:] }
        var fields: [HTTPHeaders.Field] = []
        for (name, value) in object.sorted(by: { $0.key < $1.key }) {
            // Chromium joins repeated headers with newlines.
            for line in (value.string ?? "").split(separator: "\n") { fields.append(.init(name: name, value: String(line))) }
        }
        return HTTPHeaders(fields)
    }
}
