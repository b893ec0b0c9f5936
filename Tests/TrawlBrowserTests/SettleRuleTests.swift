import Testing

@testable import TrawlBrowser

/// The settle rule without a browser: ``SettleStateMachine`` fed events at made-up instants.
@Suite struct SettleRuleTests {
    static let start = ContinuousClock.now
    static func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    /// Quiet window 400 ms, probes after 50 ms, timers held up to 2 s.
    static func machine(idleProbeAfter: Duration? = .milliseconds(50), timerWait: Duration? = .seconds(2)) -> SettleStateMachine {
        var configuration = BrowserConfiguration(quietWindow: .milliseconds(400))
        configuration.idleProbeAfter = idleProbeAfter
        configuration.pendingTimerWait = timerWait
        var machine = SettleStateMachine(configuration: configuration, start: at(0))
        machine.navigationAnswered()
        machine.requestStarted("doc", now: at(0))
        machine.requestEnded("doc", now: at(100))
        machine.loaded()
        return machine
    }

    @Test func quietAndLoadedSettlesWhenTimersNeverHold() {
        var machine = Self.machine(idleProbeAfter: nil, timerWait: nil)
        #expect(machine.next(now: Self.at(300)) == .wait)
        #expect(machine.next(now: Self.at(500)) == .settled(early: false))
    }

    @Test func aRequestInFlightHoldsUntilItIsStalled() {
        var machine = Self.machine(idleProbeAfter: nil, timerWait: nil)
        machine.requestStarted("poll", now: Self.at(100))
        #expect(machine.next(now: Self.at(1000)) == .wait)
        #expect(machine.next(now: Self.at(1600)) == .settled(early: false))
    }

    @Test func theScriptsWordSettlesEarlyUnlessANetworkEventCameSinceTheProbe() {
        var machine = Self.machine(timerWait: nil)
        #expect(machine.next(now: Self.at(120)) == .wait, "not quiet long enough to ask")
        #expect(machine.next(now: Self.at(150)) == .probeScripts(activity: 2))
        #expect(machine.next(now: Self.at(160)) == .wait, "one probe at a time")
        machine.probeAnswered(pending: 0, hasMedia: false, activity: 2)
        #expect(machine.next(now: Self.at(170)) == .settled(early: true))

        var late = Self.machine(timerWait: nil)
        #expect(late.next(now: Self.at(150)) == .probeScripts(activity: 2))
        late.requestStarted("xhr", now: Self.at(155))
        late.requestEnded("xhr", now: Self.at(160))
        late.probeAnswered(pending: 0, hasMedia: false, activity: 2)
        #expect(late.next(now: Self.at(170)) == .wait)
    }

    /// Each row: the timer probe's answer when the page would first settle (at 500 ms), then
    /// what the page does at later instants with no network event.
    @Test(arguments: [
        // No media, a timeout due in 700 ms: held until it has run (+ a margin), then asked again.
        (nextTimer: 700 as Int?, hasMedia: false, then: [(1000, SettleStateMachine.Action.wait), (1230, .askForTimers(activity: 2))]),
        // No media, nothing pending: settles.
        (nextTimer: nil, hasMedia: false, then: [(500, .settled(early: false))]),
        // A timeout due after the wait (2 s from 500 ms) does not hold.
        (nextTimer: 2500, hasMedia: false, then: [(500, .settled(early: false))]),
        // Media in the DOM: a pending timer changes nothing.
        (nextTimer: 100, hasMedia: true, then: [(500, .settled(early: false))]),
    ])
    func aTimerHoldsAPageWithoutMedia(nextTimer: Int?, hasMedia: Bool, then: [(Int, SettleStateMachine.Action)]) {
        var machine = Self.machine(idleProbeAfter: nil)
        #expect(machine.next(now: Self.at(500)) == .askForTimers(activity: 2))
        #expect(machine.next(now: Self.at(501)) == .wait, "waiting for the answer")
        machine.timersAnswered(nextTimer: nextTimer.map { .milliseconds($0) }, hasMedia: hasMedia, activity: 2, now: Self.at(500))
        for (instant, action) in then { #expect(machine.next(now: Self.at(instant)) == action, "at \(instant) ms") }
    }

    @Test func theTimersFetchBringsMediaAndThePageSettlesWithoutAskingAgain() {
        var machine = Self.machine(idleProbeAfter: nil)
        #expect(machine.next(now: Self.at(500)) == .askForTimers(activity: 2))
        machine.timersAnswered(nextTimer: .milliseconds(700), hasMedia: false, activity: 2, now: Self.at(500))
        // The timer fires and fetches the widget's JSON, which names a GIF.
        machine.requestStarted("widget", now: Self.at(1210))
        machine.requestEnded("widget", now: Self.at(1250))
        machine.bodyRequested()
        #expect(machine.next(now: Self.at(1700)) == .wait, "its body is still being read")
        machine.bodyArrived(namesMedia: true)
        #expect(machine.next(now: Self.at(1600)) == .wait, "quiet window not over")
        #expect(machine.next(now: Self.at(1650)) == .settled(early: false))
    }

    @Test func aChainOfTimersHoldsNoLongerThanTheWait() {
        var machine = Self.machine(idleProbeAfter: nil)
        var now = 500
        var asks = 0
        while now < 5000 {
            let action = machine.next(now: Self.at(now))
            if action == .settled(early: false) { break }
            if action == .askForTimers(activity: 2) {
                asks += 1
                machine.timersAnswered(nextTimer: .milliseconds(100), hasMedia: false, activity: 2, now: Self.at(now))
            }
            now += 10
        }
        // Asked at 500 ms, and again once each timer has run (every 130 ms here); the first
        // timer due past 2500 ms (500 + 2 s) no longer holds the page.
        #expect(now == 2460)
        #expect(asks == 16)
    }

    @Test func anEarlySettleWaitsForTheTimerToo() {
        var machine = Self.machine()
        #expect(machine.next(now: Self.at(150)) == .probeScripts(activity: 2))
        machine.probeAnswered(pending: 0, hasMedia: false, activity: 2)
        #expect(machine.next(now: Self.at(160)) == .askForTimers(activity: 2))
        machine.timersAnswered(nextTimer: .milliseconds(1000), hasMedia: false, activity: 2, now: Self.at(160))
        #expect(machine.next(now: Self.at(600)) == .wait, "the quiet window is over, the timer is not due")
        #expect(machine.next(now: Self.at(1190)) == .askForTimers(activity: 2))
        machine.timersAnswered(nextTimer: nil, hasMedia: false, activity: 2, now: Self.at(1190))
        #expect(machine.next(now: Self.at(1200)) == .settled(early: false))
    }

    @Test func anXHRNamingMediaReleasesThePageBeforeItWouldSettle() {
        var machine = Self.machine(idleProbeAfter: nil)
        machine.requestStarted("api", now: Self.at(100))
        machine.requestEnded("api", now: Self.at(120))
        machine.bodyRequested()
        machine.bodyArrived(namesMedia: true)
        #expect(machine.next(now: Self.at(520)) == .settled(early: false), "no question to the page")
    }

    /// The two kinds of page a short timer makes: media already in (the settle does not wait
    /// for what the scripts still have pending), and none yet (pending work holds it).
    @Test func mediaInTheDOMSettleAPageWhoseScriptsStillHaveWorkPending() {
        var machine = Self.machine()
        #expect(machine.next(now: Self.at(150)) == .probeScripts(activity: 2))
        machine.probeAnswered(pending: 1, hasMedia: true, activity: 2)
        #expect(machine.hasMedia)
        #expect(machine.next(now: Self.at(160)) == .settled(early: true), "no question about timers either")

        var without = Self.machine()
        #expect(without.next(now: Self.at(150)) == .probeScripts(activity: 2))
        without.probeAnswered(pending: 1, hasMedia: false, activity: 2)
        #expect(without.next(now: Self.at(160)) == .wait)
        #expect(without.next(now: Self.at(200)) == .probeScripts(activity: 2), "asked again")
        without.probeAnswered(pending: 1, hasMedia: false, activity: 2)
        #expect(without.next(now: Self.at(499)) == .probeScripts(activity: 2))
        without.probeAnswered(pending: 1, hasMedia: false, activity: 2)
        #expect(without.next(now: Self.at(500)) == .askForTimers(activity: 2), "the whole window, then the timer rule")
    }

    @Test func anXHRNamingMediaSettlesThePageAfterTheShortQuietWithoutAsking() {
        var machine = Self.machine()
        machine.requestStarted("api", now: Self.at(100))
        machine.requestEnded("api", now: Self.at(120))
        machine.bodyRequested()
        #expect(machine.next(now: Self.at(200)) == .wait, "its body is still being read")
        machine.bodyArrived(namesMedia: true)
        #expect(machine.next(now: Self.at(160)) == .wait, "not quiet long enough")
        #expect(machine.next(now: Self.at(170)) == .settled(early: true))
    }

    @Test func mediaDoNotSettleAPageWithARequestInFlightOrWhileScrollingOrWithoutProbes() {
        var inFlight = Self.machine()
        inFlight.mediaShown()
        inFlight.requestStarted("poll", now: Self.at(100))
        #expect(inFlight.next(now: Self.at(400)) == .wait)
        inFlight.requestEnded("poll", now: Self.at(450))
        #expect(inFlight.next(now: Self.at(500)) == .settled(early: true))

        var scrolled = Self.machine()
        scrolled.mediaShown()
        scrolled.scrolled(at: Self.at(200))
        #expect(scrolled.next(now: Self.at(300)) == .wait)
        #expect(scrolled.next(now: Self.at(600)) == .settled(early: false), "a scroll waits the whole window")

        var noProbes = Self.machine(idleProbeAfter: nil)
        noProbes.mediaShown()
        #expect(noProbes.next(now: Self.at(300)) == .wait)
        #expect(noProbes.next(now: Self.at(500)) == .settled(early: false))
    }

    @Test func aProbeAnsweredAfterANetworkEventDoesNotSettleOnMedia() {
        var machine = Self.machine()
        #expect(machine.next(now: Self.at(150)) == .probeScripts(activity: 2))
        machine.requestStarted("xhr", now: Self.at(155))
        machine.probeAnswered(pending: 1, hasMedia: true, activity: 2)
        #expect(machine.next(now: Self.at(170)) == .wait, "a request is in flight")
        machine.requestEnded("xhr", now: Self.at(180))
        #expect(machine.next(now: Self.at(229)) == .wait)
        #expect(machine.next(now: Self.at(230)) == .settled(early: true), "the media are known: no second probe")
    }

    /// ``SettleStateMachine/mediaSettleInstant(after:)`` is the instant a page with media in
    /// settles with no new event: just before it the rule waits, at it the page settles (it is
    /// woken then, not at the next periodic tick). Without media nothing is named.
    @Test func aPageWithMediaNamesTheInstantItSettles() {
        var media = Self.machine()
        #expect(media.mediaSettleInstant(after: Self.at(110)) == nil, "no media yet")
        media.requestStarted("api", now: Self.at(100))
        media.requestEnded("api", now: Self.at(120))
        media.bodyRequested()
        media.bodyArrived(namesMedia: true)
        #expect(media.mediaSettleInstant(after: Self.at(130)) == Self.at(170))
        #expect(media.next(now: Self.at(169)) == .wait)
        #expect(media.next(now: Self.at(170)) == .settled(early: true))
        media.requestStarted("late", now: Self.at(175))
        media.requestEnded("late", now: Self.at(180))
        #expect(media.mediaSettleInstant(after: Self.at(180)) == Self.at(230), "a network event moves it")
        #expect(media.mediaSettleInstant(after: Self.at(230)) == nil, "past")

        var scrolled = Self.machine()
        scrolled.mediaShown()
        scrolled.scrolled(at: Self.at(200))
        #expect(scrolled.mediaSettleInstant(after: Self.at(210)) == nil, "a scroll waits the whole window")

        var noProbes = Self.machine(idleProbeAfter: nil)
        noProbes.mediaShown()
        #expect(noProbes.mediaSettleInstant(after: Self.at(110)) == nil)
    }

    @Test(arguments: [
        (#"{"url":"https:\/\/media.test\/a.GIF"}"#, true), (#"{"v":"clip.mp4?x=1"}"#, true), (#"{"still":"a.webp"}"#, true),
        (#"{"v":"b.WebM"}"#, true), (#"{"bundle":"webpack.js","gifts":"none","mp3":"a.mp3"}"#, false), ("", false), (".gi", false),
    ])
    func mediaMentions(body: String, names: Bool) {
        #expect(MediaMention.appears(in: Array(body.utf8)) == names)
    }
}
