import ArgumentParser
import TrawlBrowser

/// The headless-browser flags every command that loads pages shares (`resolve`, `batch`).
struct BrowserOptions: ParsableArguments {
    @Option(help: "When to render pages in headless Chromium: auto (only a page whose static fetch found no media and that looks script-driven; remembered per host), always, or never.")
    var browser: BrowserMode = .auto

    @Option(help: "Scroll a rendered page up to this many times while new content arrives (infinite lists).")
    var scroll: Int = 0

    @Option(help: "Seconds a rendered page may take to settle, scripts included.")
    var pageBudget: Double = 15

    func validate() throws {
        if scroll < 0 { throw ValidationError("--scroll must not be negative") }
        if !(pageBudget > 0) { throw ValidationError("--page-budget must be a positive number of seconds") }
    }

    /// The browser's configuration; `connectTo` and the user agent come from the loader's.
    var configuration: BrowserConfiguration {
        var configuration = BrowserConfiguration()
        configuration.scrollCount = scroll
        configuration.pageBudget = .milliseconds(Int(pageBudget * 1000))
        return configuration
    }
}

extension BrowserMode: ExpressibleByArgument {}
