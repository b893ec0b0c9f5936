public import ArgumentParser
import TrawlBrowser

/// The headless-browser flags every command that loads pages shares (`resolve`, `batch`).
struct BrowserOptions: ParsableArguments {
    @Option(
        help:
            "When to render pages in headless Chromium: auto (only a page whose static fetch found no media and that looks script-driven; remembered per host), always, or never."
    )
    var browser: BrowserMode = .auto

    @Option(help: "Scroll a rendered page up to this many times while new content arrives (infinite lists).")
    var scroll: Int = 0

    @Option(help: "Seconds a rendered page may take to settle, scripts included.")
    var pageBudget: Double = 15

    @Option(help: "Milliseconds of network quiet after which a rendered page counts as settled.")
    var quietWindow: Int = 400

    @Flag(
        inversion: .prefixedNo,
        help:
            "Settle a rendered page after 50 ms of network quiet when its scripts have nothing pending (timers, intervals, animation frames, iframes); without it, every page waits its whole --quiet-window."
    )
    var earlySettle = true

    @Option(
        help:
            "Milliseconds a rendered page without media yet waits for a timer its scripts set (a widget that fetches its GIF a moment after the load); 0: timers never hold a page."
    )
    var timerWait: Int = 2000

    @Option(
        help:
            "What a rendered page may share with the next: host (pages of one host reuse a tab and its renderer, everything the last page left cleared between them; the default, but for serve) or page (a tab and a browser context per page; serve's default, its clients being strangers)."
    )
    var isolate: BrowserIsolation?

    func validate() throws {
        if scroll < 0 { throw ValidationError("--scroll must not be negative") }
        if !(pageBudget > 0) { throw ValidationError("--page-budget must be a positive number of seconds") }
        if quietWindow < 1 { throw ValidationError("--quiet-window must be at least 1 millisecond") }
        if timerWait < 0 { throw ValidationError("--timer-wait must not be negative") }
    }

    /// The browser's configuration for one user's own work (pages of a host share a tab unless
    /// `--isolate page`); `connectTo` and the user agent come from the loader's.
    var configuration: BrowserConfiguration { configuration(isolating: .host) }

    /// The browser's configuration, with `isolation` unless `--isolate` says otherwise.
    func configuration(isolating isolation: BrowserIsolation) -> BrowserConfiguration {
        var configuration = BrowserConfiguration()
        configuration.isolation = isolate ?? isolation
        configuration.scrollCount = scroll
        configuration.pageBudget = .milliseconds(Int(pageBudget * 1000))
        configuration.quietWindow = .milliseconds(quietWindow)
        if !earlySettle { configuration.idleProbeAfter = nil }
        configuration.pendingTimerWait = timerWait > 0 ? .milliseconds(timerWait) : nil
        return configuration
    }
}

extension BrowserMode: ExpressibleByArgument {}
extension BrowserIsolation: ExpressibleByArgument {}
