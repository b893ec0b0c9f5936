/// When a page counts as settled: the rule ``PageLoad`` follows, kept apart from the DevTools
/// traffic so that it can be tested without a browser. ``PageLoad`` tells it what happened
/// (network events, the load event, answers to its questions to the page) and asks ``next(now:)``
/// what to do.
///
/// One signal decides which way a page goes: whether it has shown **media** — an XHR/fetch JSON
/// naming a media file, or a `<video>` or GIF/WebP/MP4 `<img>`/`<source>` in its DOM (light or
/// open shadow; ``ScriptActivity`` watches for them).
/// 1. **Media in, network briefly quiet** (``BrowserConfiguration/idleProbeAfter``): loaded,
///    nothing in flight, no body being read, nothing attached — settled, whatever the page's
///    scripts still have pending (a carousel's interval, an analytics timer).
/// 2. **The scripts' word** (``BrowserConfiguration/idleProbeAfter``): after the same short
///    quiet, the page is asked what its scripts have pending and whether it shows media
///    (``ScriptActivity``); at zero, or with media, it is settled before the whole window.
/// 3. **Network quiet.** Navigated, no response body being read, the network quiet for
///    ``BrowserConfiguration/quietWindow``, the load event fired (or the DOM in and a long quiet),
///    and nothing in flight younger than ``BrowserConfiguration/stalledRequestAge``.
/// 4. **A timer about to fetch** (``BrowserConfiguration/pendingTimerWait``): a page that would
///    settle by rule 2 or 3 but has shown no media yet is asked for its next pending timeout; one
///    due before the wait ends (counted from the first time the page would have settled) holds
///    the page until it has run and its requests are done. The wait bounds every page without
///    media.
struct SettleStateMachine {
    /// What ``PageLoad`` does next.
    enum Action: Equatable {
        case wait
        /// Settled; `early`: on the scripts' word, before the whole quiet window.
        case settled(early: Bool)
        /// Send ``ScriptActivity/probe``; its answer goes to ``probeAnswered(pending:hasMedia:activity:)``.
        case probeScripts(activity: Int)
        /// Send ``ScriptActivity/timerProbe``; its answer goes to
        /// ``timersAnswered(nextTimer:hasMedia:activity:now:)``.
        case askForTimers(activity: Int)
    }

    let quietWindow: Duration
    let stalledRequestAge: Duration
    let idleProbeAfter: Duration?

    private(set) var navigated = false
    private(set) var loadFired = false
    private(set) var domContentFired = false
    private(set) var lastActivity: ContinuousClock.Instant
    /// Network events seen (a scroll that brings none brought nothing).
    private(set) var activityCount = 0
    /// Requests in flight, by id, with when each started.
    private var inFlight: [String: ContinuousClock.Instant] = [:]
    private(set) var bodiesPending = 0
    /// The page has shown media (an XHR/fetch JSON naming a media file, media in its DOM).
    private(set) var hasMedia = false
    /// Workers and out-of-process frames attached: their timers are not counted.
    var attachedChildren = 0
    /// The page may settle on its scripts' word: not while scrolling.
    private var mayProbe = true
    private var probeInFlight = false
    private var lastProbe: ContinuousClock.Instant?
    /// The last probe found nothing pending and no network event came since.
    private var scriptsIdle = false
    private var timers: TimerHold

    init(configuration: BrowserConfiguration, start: ContinuousClock.Instant) {
        quietWindow = configuration.quietWindow
        stalledRequestAge = configuration.stalledRequestAge
        idleProbeAfter = configuration.idleProbeAfter
        timers = TimerHold(limit: configuration.pendingTimerWait)
        lastActivity = start
    }

    // MARK: What happened

    mutating func navigationAnswered() { navigated = true }

    mutating func frameStartedLoading(now: ContinuousClock.Instant) {
        loadFired = false
        domContentFired = false
        noteActivity(now: now)
    }

    mutating func domContentLoaded() { domContentFired = true }
    mutating func loaded() { loadFired = true }

    /// A network event: the quiet starts again, and what the scripts said no longer holds.
    mutating func noteActivity(now: ContinuousClock.Instant) {
        lastActivity = now
        activityCount += 1
        scriptsIdle = false
    }

    mutating func requestStarted(_ id: String, now: ContinuousClock.Instant) {
        noteActivity(now: now)
        inFlight[id] = now
    }

    mutating func requestEnded(_ id: String, now: ContinuousClock.Instant) {
        noteActivity(now: now)
        inFlight.removeValue(forKey: id)
    }

    mutating func bodyRequested() { bodiesPending += 1 }

    /// A response body is in; `namesMedia`: a JSON body that names a media file
    /// (``MediaMention/appears(in:)``).
    mutating func bodyArrived(namesMedia: Bool) {
        bodiesPending -= 1
        if namesMedia { mediaShown() }
    }

    /// The page has media: the timer rule no longer applies, and a short quiet settles it.
    mutating func mediaShown() {
        hasMedia = true
        timers.mediaSeen()
    }

    /// Activity before `instant` does not count as quiet time (a scroll started then). Scrolls
    /// wait the whole window, media or not, and no timer holds them: the page settled once already.
    mutating func scrolled(at instant: ContinuousClock.Instant) {
        mayProbe = false
        timers.mediaSeen()
        lastActivity = max(lastActivity, instant)
    }

    /// The answer to ``Action/probeScripts(activity:)``: zero things pending (`nil`: no answer),
    /// or media in the DOM, with no network event since the probe was sent (a request a timer
    /// started just before the probe ran reaches Trawl before the probe's reply) lets the page
    /// settle early.
    mutating func probeAnswered(pending: Double?, hasMedia: Bool, activity: Int) {
        probeInFlight = false
        if hasMedia { mediaShown() }
        if pending == 0 || self.hasMedia, activity == activityCount { scriptsIdle = true }
    }

    /// The answer to ``Action/askForTimers(activity:)``: the page's next pending timeout
    /// (`nil`: none, or no answer) and whether its DOM holds media.
    mutating func timersAnswered(nextTimer: Duration?, hasMedia: Bool, activity: Int, now: ContinuousClock.Instant) {
        if hasMedia { self.hasMedia = true }
        timers.answered(nextTimer: nextTimer, hasMedia: hasMedia, activity: activity, now: now)
    }

    // MARK: What to do

    mutating func next(now: ContinuousClock.Instant) -> Action {
        let quiet = isSettled(now: now)
        // Media in and the network briefly quiet: nothing the scripts still have pending is waited for.
        if !quiet, hasMedia, isQuietEnoughToProbe(now: now) { return .settled(early: true) }
        if quiet || settlesOnScriptsWord(now: now) {
            switch timers.decide(now: now, activity: activityCount) {
            case .settle: return .settled(early: !quiet)
            case .ask: return .askForTimers(activity: activityCount)
            case .wait: return .wait
            }
        }
        guard !probeInFlight, !scriptsIdle, isQuietEnoughToProbe(now: now), let after = idleProbeAfter else { return .wait }
        if let lastProbe, now - lastProbe < after { return .wait }
        lastProbe = now
        probeInFlight = true
        return .probeScripts(activity: activityCount)
    }

    /// When a page with media in settles by rule 1 if no event comes first: once the network
    /// has been quiet for ``BrowserConfiguration/idleProbeAfter``. ``PageLoad`` wakes itself then
    /// rather than at the next periodic tick. `nil`: no media yet, no short quiet configured, a
    /// scroll under way, or the instant is not after `now`.
    ///
    /// A page without media keeps the tick's pace: the tick's slack after the short quiet is time
    /// for scripts whose next request waits on work that makes no network event (IndexedDB,
    /// Cache Storage) before they are asked whether anything is pending.
    func mediaSettleInstant(after now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        guard hasMedia, mayProbe, let idleProbeAfter else { return nil }
        let instant = lastActivity + idleProbeAfter
        return instant > now ? instant : nil
    }

    private func isSettled(now: ContinuousClock.Instant) -> Bool {
        guard navigated, bodiesPending == 0 else { return false }
        let quiet = now - lastActivity
        guard quiet >= quietWindow else { return false }
        // The load event, or (a subresource that never arrives holds it back) a long quiet.
        guard loadFired || (domContentFired && quiet >= stalledRequestAge) else { return false }
        return inFlight.values.allSatisfy { now - $0 >= stalledRequestAge }
    }

    /// Quiet and loaded, nothing in flight, nothing attached whose scripts go uncounted.
    private func isQuietEnoughToProbe(now: ContinuousClock.Instant) -> Bool {
        guard mayProbe, let after = idleProbeAfter, navigated, loadFired, bodiesPending == 0,
            inFlight.isEmpty, attachedChildren == 0
        else { return false }
        return now - lastActivity >= after
    }

    /// Settled before the whole quiet window: the last probe found nothing pending.
    private func settlesOnScriptsWord(now: ContinuousClock.Instant) -> Bool { scriptsIdle && isQuietEnoughToProbe(now: now) }
}

/// The third rule of ``SettleStateMachine``: while a page has no media, a timeout due soon holds it.
struct TimerHold {
    enum Decision: Equatable { case settle, ask, wait }

    private enum State: Equatable {
        /// Not asked since the page last became quiet.
        case unasked
        case asking(activity: Int)
        /// A timer is due before `until`; asked again then, or after any network event.
        case holding(until: ContinuousClock.Instant, activity: Int)
        /// Nothing due in time, as of `activity` network events.
        case clear(activity: Int)
        /// The page has media (or the wait is over): the rule no longer applies.
        case released
    }

    /// `nil`: no timer holds a page.
    let limit: Duration?
    private var state: State
    /// The wait ends here: set the first time the page would have settled.
    private var deadline: ContinuousClock.Instant?
    /// A timer's callback runs a little after its due time.
    static let margin: Duration = .milliseconds(25)

    init(limit: Duration?) {
        self.limit = limit
        state = limit == nil || limit == .zero ? .released : .unasked
    }

    mutating func mediaSeen() { state = .released }

    /// The page would settle now, after `activity` network events.
    mutating func decide(now: ContinuousClock.Instant, activity: Int) -> Decision {
        if let deadline, now >= deadline { state = .released }
        switch state {
        case .released:
            return .settle
        case .asking:
            return .wait
        case .clear(let asked) where asked == activity:
            return .settle
        case .holding(let until, let asked) where asked == activity && now < until:
            return .wait
        case .unasked, .clear, .holding:
            if deadline == nil, let limit { deadline = now + limit }
            state = .asking(activity: activity)
            return .ask
        }
    }

    mutating func answered(nextTimer: Duration?, hasMedia: Bool, activity: Int, now: ContinuousClock.Instant) {
        guard case .asking = state else { return }
        if hasMedia {
            state = .released
        } else if let nextTimer, let deadline, now + nextTimer < deadline {
            state = .holding(until: now + nextTimer + Self.margin, activity: activity)
        } else {
            state = .clear(activity: activity)
        }
    }
}

/// Whether a JSON body names a media file: a cheap look for `.gif`, `.mp4`, `.webp`, `.webm`
/// (any case) — enough to tell that a page's media have arrived, not to find them.
enum MediaMention {
    static func appears(in body: some Collection<UInt8>) -> Bool {
        // The last five bytes, folded to lower case, the newest in the low byte.
        var window: UInt64 = 0
        for byte in body {
            let folded = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            window = (window << 8 | UInt64(folded)) & 0xFF_FFFF_FFFF
            let four = window & 0xFFFF_FFFF
            if four == Self.gif || four == Self.mp4 || window == Self.webp || window == Self.webm { return true }
        }
        return false
    }

    private static func word(_ text: StaticString) -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<text.utf8CodeUnitCount { value = value << 8 | UInt64(text.utf8Start[i]) }
        return value
    }

    private static let gif = word(".gif")
    private static let mp4 = word(".mp4")
    private static let webp = word(".webp")
    private static let webm = word(".webm")
}
