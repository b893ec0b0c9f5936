import Foundation
import Testing
import TrawlBrowser
import TrawlCore
import TrawlTesting

/// Pages of the tests' own on a loopback server, reached through a made-up host that the browser's
/// resolver maps to 127.0.0.1 (nothing leaves the machine).
struct BrowserSite {
    let server: LoopbackServer
    let pool: BrowserPool

    init(
        quietWindow: Duration = .milliseconds(300), pageBudget: Duration = .seconds(8), maxPages: Int = 4, scrollCount: Int = 0,
        maxBodyBytes: Int = 16 << 20, stalledRequestAge: Duration = .milliseconds(1500),
        idleProbeAfter: Duration? = BrowserConfiguration().idleProbeAfter, isolation: BrowserIsolation = .page,
        handler: @escaping LoopbackServer.Handler
    ) throws {
        try requireBrowser()
        server = try LoopbackServer(keepsAlive: true, handler: handler)
        var configuration = BrowserConfiguration(
            quietWindow: quietWindow, pageBudget: pageBudget, commandTimeout: .seconds(5), maxPages: maxPages,
            scrollCount: scrollCount, maxBodyBytes: maxBodyBytes, connectTo: ["::127.0.0.1:\(server.port)"])
        configuration.stalledRequestAge = stalledRequestAge
        configuration.idleProbeAfter = idleProbeAfter
        configuration.isolation = isolation
        pool = BrowserPool(configuration: configuration)
    }

    /// `http://site.test` + `path`: the browser resolves it to the loopback server.
    func url(_ path: String) -> URL { URL(string: "http://site.test\(path)")! }

    func close() async {
        await pool.shutdown()
        server.shutdown()
    }
}

/// The tests need the real browser: without it they fail, saying how to install it.
func requireBrowser() throws {
    guard FileManager.default.isExecutableFile(atPath: BrowserConfiguration.defaultExecutablePath) else {
        Issue.record("Chromium's headless shell is missing at \(BrowserConfiguration.defaultExecutablePath): run `make deps`")
        throw BrowserError(.launchFailed, message: "no browser")
    }
}

/// Processes whose parent is `pid`, and theirs (from /proc).
func descendants(of pid: Int32) -> [Int32] { ProcessTree.descendants(of: pid) }

/// Open descriptors of this process.
func openDescriptorCount() -> Int {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
}

/// Whether `pid` names a live process (not a zombie).
func isAlive(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
        return false
    }
    return !stat[stat.index(after: close)...].hasPrefix(" Z")
}

/// Every test that runs a browser, one at a time: they count this process's children and
/// descriptors, and two browsers at once on two cores would only slow each other down.
@Suite(.serialized, .timeLimit(.minutes(5)), .tags(.browser)) struct BrowserTests {}

/// CPU time `pid` used so far, in clock ticks (user + system), or 0 when it is gone.
func cpuTicks(_ pid: Int32) -> Int {
    guard isAlive(pid), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // After the command: state is field 0, utime 11, stime 12.
    guard fields.count > 12 else { return 0 }
    return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
}
