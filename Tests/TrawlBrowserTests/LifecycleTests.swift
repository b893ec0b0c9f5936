import Foundation
import Glibc
import Testing
@testable import TrawlBrowser
import TrawlCore
import TrawlTesting

extension BrowserTests {
/// The browser's life: restarts after a crash, no leaks over many pages, never outliving its owner.
@Suite(.tags(.process)) struct LifecycleTests {
    private static func waitUntil(_ limit: Duration, _ condition: () async -> Bool) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while clock.now < deadline {
            if await condition() { return true }
            try await Task.sleep(for: .milliseconds(25))
        }
        return await condition()
    }

    @Test func aBrowserKilledMidPageFailsThatPageRetryablyAndTheNextPageGetsANewBrowser() async throws {
        let site = try BrowserSite(pageBudget: .seconds(10)) { request in
            switch request.path {
            case "/slow": .html("<html><body><script>setInterval(() => fetch('/tick'), 100)</script></body></html>")
            case "/tick": .json("{}")
            case "/fine": .html("<html><body><script>document.body.innerHTML = '<img src=\"/ok.gif\">'</script></body></html>")
            default: .status(404)
            }
        }
        let pool = site.pool
        let inFlight = Task { try await pool.render(FetchRequest(url: site.url("/slow"))) }
        try #require(try await Self.waitUntil(.seconds(30)) { site.server.requests.contains { $0.path == "/tick" } })
        let first = try #require(await pool.browserProcessID)
        kill(first, SIGKILL)
        do {
            _ = try await inFlight.value
            Issue.record("the page in flight should have failed")
        } catch let error as BrowserError {
            #expect(error.code == .crashed)
            #expect(error.isRetryable)
        }
        let page = try await pool.render(FetchRequest(url: site.url("/fine")))
        #expect(String(decoding: page.html, as: UTF8.self).contains("/ok.gif"))
        #expect(await pool.launches == 2)
        #expect(await pool.browserProcessID != first)
        #expect(!isAlive(first))
        await site.close()
    }

    @Test func fiftyPagesThroughOneBrowserLeakNoProcessesOrDescriptors() async throws {
        let site = try BrowserSite(quietWindow: .milliseconds(100), maxPages: 4) { request in
            switch request.path {
            case "/api": .json(#"{"gif":"/a.gif"}"#)
            default: .html("""
                <html><body><script>fetch('/api').then(r => r.json()).then(d => document.body.innerHTML = '<img src="' + d.gif + '">')</script></body></html>
                """)
            }
        }
        let pool = site.pool
        func batch(_ range: Range<Int>) async throws {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for n in range {
                    group.addTask { try await pool.render(FetchRequest(url: site.url("/p\(n)"))).responses.count }
                }
                for try await count in group { #expect(count == 1) }
            }
        }
        try await batch(0..<10)
        #expect(try await Self.waitUntil(.seconds(5)) { await pool.openPageCount == 0 })
        try await Task.sleep(for: .milliseconds(500))
        // The pool's browser and its helpers (other suites may run browsers of their own meanwhile).
        let browser = try #require(await pool.browserProcessID)
        let processesAfterWarmUp = descendants(of: browser).count
        let descriptorsAfterWarmUp = openDescriptorCount()
        try await batch(10..<50)
        #expect(try await Self.waitUntil(.seconds(5)) { await pool.openPageCount == 0 })
        // Renderers of closed contexts take a moment to exit. The descriptor count is the whole
        // test process's, and other suites open and close theirs meanwhile: a leak of one per
        // page (40 pages since the warm-up) stands out above a slack of 20.
        let settled = try await Self.waitUntil(.seconds(5)) {
            descendants(of: browser).count <= processesAfterWarmUp && openDescriptorCount() <= descriptorsAfterWarmUp + 20
        }
        #expect(settled, "processes \(processesAfterWarmUp) → \(descendants(of: browser).count), fds \(descriptorsAfterWarmUp) → \(openDescriptorCount())")
        #expect(await pool.launches == 1)
        // Every command got its reply (or its timeout): nothing waits on, no timer is left.
        #expect(try await Self.waitUntil(.seconds(5)) { await pool.pendingCommandCount == 0 })
        #expect(await pool.browserProcessID == browser)
        let tree = descendants(of: browser)
        await site.close()
        #expect(!isAlive(browser))
        #expect(try await Self.waitUntil(.seconds(5)) { tree.allSatisfy { !isAlive($0) } })
    }

    @Test func shutdownLeavesNoBrowserProcessOrProfile() async throws {
        let site = try BrowserSite { _ in .html("<p>x</p>") }
        _ = try await site.pool.render(FetchRequest(url: site.url("/")))
        let pid = try #require(await site.pool.browserProcessID)
        let tree = descendants(of: pid)
        #expect(!tree.isEmpty)
        await site.close()
        #expect(!isAlive(pid))
        #expect(try await Self.waitUntil(.seconds(5)) { tree.allSatisfy { !isAlive($0) } })
        let mine = "trawl-browser-\(getpid())-"
        let profiles = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter { $0.hasPrefix(mine) }
        #expect(profiles.isEmpty)
    }

    @Test func killingTheOwnerWithSIGKILLLeavesNoBrowser() async throws {
        try requireBrowser()
        let holder = try #require(CommandRun.builtExecutable("trawl-test-process"), "build trawl-test-process first (swift build --build-tests)")
        let process = Process()
        process.executableURL = holder
        process.arguments = ["hold-browser"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // The holder prints `browser PID` once its browser rendered a page.
        var line = Data()
        let reader = output.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let browser = try #require(Int32(text.replacingOccurrences(of: "browser ", with: "")), "holder said: \(text)")
        #expect(browser > 0 && isAlive(browser))
        let tree = descendants(of: browser)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(try await Self.waitUntil(.seconds(10)) { !isAlive(browser) && tree.allSatisfy { !isAlive($0) } })
    }
}
}

extension BrowserTests.LifecycleTests {
    @Test func aBrowserThatStopsAnsweringIsReplaced() async throws {
        let site = try BrowserSite { _ in .html("<html><body><p>fine</p></body></html>") }
        let pool = BrowserPool(
            configuration: BrowserConfiguration(
                // Long enough for a launch on a loaded machine (six builds at once start Chromium in
                // over half a second), short enough to find the frozen one quickly.
                pageBudget: .seconds(4), commandTimeout: .seconds(2), connectTo: ["::127.0.0.1:\(site.server.port)"]))
        _ = try await pool.render(FetchRequest(url: site.url("/")))
        let frozen = try #require(await pool.browserProcessID)
        kill(frozen, SIGSTOP)
        // The page that meets the frozen browser fails with a retryable error — unless the
        // spare tab being prepared met it first and the pool already started another browser,
        // which then renders it: either way the frozen one is replaced (checked below).
        do {
            _ = try await pool.render(FetchRequest(url: site.url("/")))
        } catch let error as BrowserError {
            #expect(error.isRetryable)
        }
        let page = try await pool.render(FetchRequest(url: site.url("/")))
        #expect(String(decoding: page.html, as: UTF8.self).contains("fine"))
        #expect(await pool.launches == 2)
        #expect(!isAlive(frozen))
        await pool.shutdown()
        await site.close()
    }
}
