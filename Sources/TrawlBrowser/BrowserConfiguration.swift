import Foundation

/// How Trawl runs its headless browser: which binary, how long a page may take, what it may load.
///
/// A plain value: nothing here reads the environment. The defaults suit small script-driven pages
/// on a machine with a couple of cores.
public struct BrowserConfiguration: Sendable, Hashable {
    /// Chromium's headless shell itself (not the `/usr/bin` wrapper, whose pid is a shell's).
    public var executablePath: String
    /// The network must be quiet this long (after the load event) for a page to count as settled.
    public var quietWindow: Duration
    /// A request in flight longer than this no longer holds a page back from settling (a long
    /// poll, a stream, a server that never answers).
    public var stalledRequestAge: Duration
    /// Everything one page may take, from opening its tab to its DOM: a page that has not settled
    /// by then is snapshotted as it is; a page that cannot be snapshotted by then fails.
    public var pageBudget: Duration
    /// The longest any single DevTools command may wait for its reply outside a page's budget
    /// (creating contexts and tabs, closing them).
    public var commandTimeout: Duration
    /// How many pages may be open at once; further pages wait their turn.
    public var maxPages: Int
    /// How many times to scroll to the bottom while each scroll brings new content.
    public var scrollCount: Int
    /// CDP resource types (`Image`, `Font`, `Media`, `Stylesheet`, …) never downloaded; their URLs
    /// are still recorded in ``RenderedPage/blockedRequests``.
    public var blockedResourceTypes: Set<String>
    /// XHR/fetch bodies larger than this are not kept.
    public var maxBodyBytes: Int
    /// curl-style `--connect-to` entries, `HOST:PORT:TO_HOST:TO_PORT` (`HOST` and `PORT` may be
    /// empty: any). They become Chromium's `--host-resolver-rules`.
    public var connectTo: [String]
    /// The `User-Agent` pages see; `nil` keeps Chromium's own.
    public var userAgent: String?
    /// Prepare the next page's tab (its context, renderer and domains, ~0.1 s) while the current
    /// page settles. Costs one idle renderer (~30 MB).
    public var preparesNextTab: Bool
    /// Where the browser's standard error goes (a file path); `nil` discards it.
    public var stderrPath: String?
    /// No host name resolves (Chromium's `MAP * ~NOTFOUND`, in place of ``connectTo``): for a
    /// replay, whose requests are all answered by an interceptor, so that nothing the page does
    /// can reach the network — not a request, not a DNS prefetch, not a WebSocket or a worker's
    /// request, not WebRTC (its UDP is shut off too). Also what the address guard runs the browser
    /// with (``RequestInterceptor/fetching(through:observe:)``).
    public var offline = false
    /// Every site in a renderer of its own (`--site-per-process`): another site's iframe is then
    /// an out-of-process frame, a target of its own that the page attaches. Off by default (one
    /// renderer per page is lighter); pages are read the same either way.
    public var isolatesSites = false
    /// After the network has been quiet this long (the load event fired, no request in flight),
    /// the page is asked whether its scripts still have work that could bring more content: a
    /// timer due within ``quietWindow``, an interval or an animation frame pending, a message
    /// posted in the last 50 ms, the document still loading, an iframe (see ``ScriptActivity``).
    /// When nothing is pending, the page is settled then, without waiting out the rest of
    /// ``quietWindow``; otherwise it is asked again, and the whole window still applies. `nil`:
    /// always wait the whole window. Scrolling (``scrollCount``) always waits the whole window.
    public var idleProbeAfter: Duration? = .milliseconds(50)
    /// While a rendered page has shown no media (no XHR/fetch JSON naming a media file, no
    /// `<video>` or GIF/WebP `<img>` in its DOM), a timeout its scripts set that is due within
    /// this long of the moment the page would have settled holds it until the timer has run and
    /// its requests are done: a widget that fetches its GIF a second after the load is not cut
    /// off by ``quietWindow``. A page with media settles as before. `nil` or zero: timers never
    /// hold a page (intervals never do).
    public var pendingTimerWait: Duration? = .seconds(2)
    /// Whether pages of one host may reuse a tab and its renderer, cleared between pages
    /// (``BrowserIsolation/host``), or each page gets a context and a tab of its own
    /// (``BrowserIsolation/page``, the default: nothing is shared).
    public var isolation: BrowserIsolation = .page
    /// More Chromium switches, after Trawl's own (a later switch of the same name wins): for
    /// measuring a switch's effect before making it a default (`trawl-browser-bench --variant`,
    /// in the benchmarks' package, `Benchmarks/`).
    public var extraArguments: [String] = []

    /// The Debian location of the headless shell (`apt-get install chromium-headless-shell`).
    public static let defaultExecutablePath = "/usr/lib/chromium/chromium-headless-shell"
    /// Images, fonts, media and style sheets: nothing Trawl reads needs their bytes.
    public static let defaultBlockedResourceTypes: Set<String> = ["Image", "Font", "Media", "Stylesheet"]

    public init(
        executablePath: String = BrowserConfiguration.defaultExecutablePath,
        quietWindow: Duration = .milliseconds(400),
        stalledRequestAge: Duration = .milliseconds(1500),
        pageBudget: Duration = .seconds(15),
        commandTimeout: Duration = .seconds(10),
        maxPages: Int = 8,
        scrollCount: Int = 0,
        blockedResourceTypes: Set<String> = BrowserConfiguration.defaultBlockedResourceTypes,
        maxBodyBytes: Int = 16 << 20,
        connectTo: [String] = [],
        userAgent: String? = nil,
        preparesNextTab: Bool = true,
        stderrPath: String? = nil
    ) {
        self.executablePath = executablePath
        self.quietWindow = quietWindow
        self.stalledRequestAge = stalledRequestAge
        self.pageBudget = pageBudget
        self.commandTimeout = commandTimeout
        self.maxPages = max(1, maxPages)
        self.scrollCount = max(0, scrollCount)
        self.blockedResourceTypes = blockedResourceTypes
        self.maxBodyBytes = maxBodyBytes
        self.connectTo = connectTo
        self.userAgent = userAgent
        self.preparesNextTab = preparesNextTab
        self.stderrPath = stderrPath
    }

    /// Chromium's `--host-resolver-rules` value for ``connectTo``, or `nil` when there is none.
    ///
    /// `example.com:443:127.0.0.1:8080` → `MAP example.com:443 127.0.0.1:8080`;
    /// `::127.0.0.1:8080` → `MAP * 127.0.0.1:8080`. An empty `TO_HOST` keeps the host
    /// (only the port moves). Malformed entries throw ``BrowserError/invalidConfiguration``.
    public func hostResolverRules() throws -> String? {
        guard !connectTo.isEmpty else { return nil }
        var rules: [String] = []
        for entry in connectTo {
            let parts = Self.splitConnectTo(entry)
            guard parts.count == 4, !parts[3].isEmpty, Int(parts[3]) != nil, parts[1].isEmpty || Int(parts[1]) != nil else {
                throw BrowserError.invalidConfiguration("connect-to entry \(entry) is not HOST:PORT:TO_HOST:TO_PORT")
            }
            let source = (parts[0].isEmpty ? "*" : parts[0]) + (parts[1].isEmpty ? "" : ":\(parts[1])")
            let host = parts[2].isEmpty ? (parts[0].isEmpty ? "127.0.0.1" : parts[0]) : parts[2]
            rules.append("MAP \(source) \(host):\(parts[3])")
        }
        // `localhost` stays itself, as curl's mapping never touches it unless asked.
        return (rules + ["EXCLUDE localhost"]).joined(separator: ", ")
    }

    /// Splits on colons outside `[…]` (an IPv6 address in brackets keeps its colons).
    private static func splitConnectTo(_ entry: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var inBrackets = false
        for character in entry {
            switch character {
            case "[": inBrackets = true; current.append(character)
            case "]": inBrackets = false; current.append(character)
            case ":" where !inBrackets: parts.append(current); current = ""
            default: current.append(character)
            }
        }
        parts.append(current)
        return parts
    }

    /// The command line for one launch (after the executable).
    func arguments(profileDirectory: String) throws -> [String] {
        var arguments =
            [
                "--headless",
                "--remote-debugging-pipe",
                "--no-sandbox",
                "--user-data-dir=\(profileDirectory)",
                // Lean: nothing runs that no page asked for.
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-default-apps",
                "--disable-extensions",
                "--disable-sync",
                "--disable-breakpad",
                "--disable-domain-reliability",
                "--metrics-recording-only",
                "--mute-audio",
                "--password-store=basic",
                "--disable-dev-shm-usage",
                "--disable-gpu",
                "--disable-features=Translate,MediaRouter,OptimizationHints,InterestFeedContentSuggestions,AutofillServerCommunication",
                // Pages in the background (every tab here) run at full speed: timers are not throttled.
                "--disable-background-timer-throttling",
                "--disable-backgrounding-occluded-windows",
                "--disable-renderer-backgrounding",
                "--disable-ipc-flooding-protection",
                "--disable-hang-monitor",
                "--disable-popup-blocking",
                // A page left for the next one (or for about:blank) is gone, not kept frozen in the
                // back-forward cache with its renderer, and a same-site navigation keeps its renderer.
                "--disable-back-forward-cache",
                "--no-pings",
            ] + extraArguments + ["about:blank"]
        if isolatesSites { arguments.insert("--site-per-process", at: 4) }
        if offline {
            arguments.insert("--host-resolver-rules=MAP * ~NOTFOUND", at: 4)
            // WebRTC sends STUN over UDP to address literals without asking the resolver; with
            // no proxy this policy leaves it no way out (checked: no packet reaches loopback).
            arguments.insert("--force-webrtc-ip-handling-policy=disable_non_proxied_udp", at: 4)
        } else if let rules = try hostResolverRules() {
            arguments.insert("--host-resolver-rules=\(rules)", at: 4)
        }
        if let userAgent { arguments.insert("--user-agent=\(userAgent)", at: 4) }
        return arguments
    }
}
