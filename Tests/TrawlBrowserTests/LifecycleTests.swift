import Foundation
import Glibc
import Testing
import TrawlCore
import TrawlTesting

@testable import TrawlBrowser

extension BrowserTests {
    /// The browser's life: restarts after a crash, no leaks over many pages, never outliving its owner.
    @Suite(.tags(.process)) struct LifecycleTests {
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
            try await site.server.waitForRequests(for: "the page's first tick") { $0.contains { $0.path == "/tick" } }
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
                default:
                    .html(
                        """
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
            try await waitUntil("the warm-up's pages to close", within: .seconds(60)) { await pool.openPageCount == 0 }
            // The pool's browser and its helpers (other suites may run browsers of their own meanwhile).
            // Renderers of the warm-up's closed contexts may still be exiting: they raise the
            // baseline by a few processes at most, well below the 40 a leak of one per page adds.
            let browser = try #require(await pool.browserProcessID)
            let processesAfterWarmUp = descendants(of: browser).count
            let descriptorsAfterWarmUp = openDescriptorCount()
            try await batch(10..<50)
            try await waitUntil("the pages to close", within: .seconds(60)) { await pool.openPageCount == 0 }
            // Renderers of closed contexts take a moment to exit. The descriptor count is the whole
            // test process's, and other suites open and close theirs meanwhile: a leak of one per
            // page (40 pages since the warm-up) stands out above a slack of 20.
            let settled =
                (try? await waitUntil(within: .seconds(60), interval: .milliseconds(20)) {
                    descendants(of: browser).count <= processesAfterWarmUp && openDescriptorCount() <= descriptorsAfterWarmUp + 20
                }) != nil
            #expect(settled, "processes \(processesAfterWarmUp) → \(descendants(of: browser).count), fds \(descriptorsAfterWarmUp) → \(openDescriptorCount())")
            #expect(await pool.launches == 1)
            // Every command got its reply (or its timeout): nothing waits on, no timer is left.
            try await waitUntil("every command's reply or timeout", within: .seconds(60)) { await pool.pendingCommandCount == 0 }
            #expect(await pool.browserProcessID == browser)
            let tree = descendants(of: browser)
            await site.close()
            #expect(!isAlive(browser))
            try await waitUntil("the browser's helpers to exit", within: .seconds(60), interval: .milliseconds(20)) { tree.allSatisfy { !isAlive($0) } }
        }

        @Test func shutdownLeavesNoBrowserProcessOrProfile() async throws {
            let site = try BrowserSite { _ in .html("<p>x</p>") }
            _ = try await site.pool.render(FetchRequest(url: site.url("/")))
            let pid = try #require(await site.pool.browserProcessID)
            let tree = descendants(of: pid)
            #expect(!tree.isEmpty)
            await site.close()
            #expect(!isAlive(pid))
            try await waitUntil("the browser's helpers to exit", within: .seconds(60), interval: .milliseconds(20)) { tree.allSatisfy { !isAlive($0) } }
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
            let exited = process.watchExit()
            try process.run()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            // The holder prints `browser PID` once its browser rendered a page.
            let text = try await OutputLines(output).first(for: "the holder's browser is up") { $0.hasPrefix("browser ") }
            let browser = try #require(Int32(text.replacingOccurrences(of: "browser ", with: "")), "holder said: \(text)")
            #expect(browser > 0 && isAlive(browser))
            let tree = descendants(of: browser)
            kill(process.processIdentifier, SIGKILL)
            try await exited.wait(for: "the holder to die of SIGKILL", within: .seconds(60))
            try await waitUntil("the orphaned browser and its helpers to exit", within: .seconds(60), interval: .milliseconds(20)) {
                !isAlive(browser) && tree.allSatisfy { !isAlive($0) }
            }
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
