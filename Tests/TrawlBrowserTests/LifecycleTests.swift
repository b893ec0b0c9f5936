import Foundation
import Glibc
import Synchronization
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

        /// A page whose renderer dies under it is rendered once more, in a fresh tab.
        @Test func aPageWhoseRendererCrashedIsRenderedOnceMore() async throws {
            let site = try Self.flakySite()
            let render = Self.render(site)
            try await Self.waitForTick(of: 1, on: site, or: render)
            #expect(try await Self.killRenderers(of: site.pool) > 0)
            let payloads = try await render.task.value
            let dom = try #require(payloads.last { $0.info.origin == .domSnapshot })
            #expect(dom.text.contains("/ok.gif"))
            #expect(site.server.requests.filter { $0.path == "/flaky" }.count == 2)
            #expect(await site.pool.launches == 1)
            await site.close()
        }

        /// The second crash is the page's answer: no third try.
        @Test func aPageWhoseRendererCrashesTwiceFailsAsCrashed() async throws {
            let site = try Self.flakySite(fineAfter: 3)
            let render = Self.render(site)
            for attempt in 1...2 {
                try await Self.waitForTick(of: attempt, on: site, or: render)
                #expect(try await Self.killRenderers(of: site.pool) > 0)
            }
            await #expect { try await render.task.value } throws: { ($0 as? BrowserError)?.code == .crashed }
            #expect(site.server.requests.filter { $0.path == "/flaky" }.count == 2)
            await site.close()
        }

        /// `/flaky` rendered through the transport, and whether that has ended.
        static func render(_ site: BrowserSite) -> (task: Task<[Payload], any Error>, ended: Watched<Bool>) {
            let ended = Watched(false)
            let task = Task {
                defer { ended.set(true) }
                var payloads: [Payload] = []
                for try await payload in BrowserTransport(pool: site.pool).payloads(for: FetchRequest(url: site.url("/flaky")), context: nil) {
                    payloads.append(payload)
                }
                return payloads
            }
            return (task, ended)
        }

        /// Waits for a tick of try `attempt`'s page; a render that ends first says why.
        static func waitForTick(of attempt: Int, on site: BrowserSite, or render: (task: Task<[Payload], any Error>, ended: Watched<Bool>)) async throws {
            try await waitUntil("try \(attempt)'s tick", interval: .milliseconds(10)) {
                let requests = site.server.requests
                let page = requests.indices.filter { requests[$0].path == "/flaky" }.dropFirst(attempt - 1).first
                return render.ended.value || page.map { requests[$0...].contains { $0.path == "/tick" } } ?? false
            }
            if render.ended.value {
                _ = try await render.task.value
                Issue.record("the render ended before try \(attempt)'s tick")
            }
        }

        /// `/flaky` ticks until its renderer is killed for its first `fineAfter - 1` requests,
        /// then is a page with a GIF.
        static func flakySite(fineAfter: Int = 2) throws -> BrowserSite {
            let served = Mutex(0)
            return try BrowserSite(pageBudget: .seconds(20)) { request in
                switch request.path {
                case "/flaky":
                    let count = served.withLock { count in
                        count += 1
                        return count
                    }
                    return count < fineAfter
                        ? .html("<html><body><script>setInterval(() => fetch('/tick'), 100)</script></body></html>")
                        : .html("<html><body><script>document.body.innerHTML = '<img src=\"/ok.gif\">'</script></body></html>")
                case "/tick": return .json("{}")
                default: return .status(404)
                }
            }
        }

        /// Kills every renderer process of the pool's browser (the page's and a spare tab's); the
        /// browser itself lives on. Returns how many were killed.
        static func killRenderers(of pool: BrowserPool) async throws -> Int {
            let browser = try #require(await pool.browserProcessID)
            var killed = 0
            for pid in descendants(of: browser) {
                guard let command = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")),
                    String(decoding: command, as: UTF8.self).contains("--type=renderer")
                else { continue }
                if kill(pid, SIGKILL) == 0 { killed += 1 }
            }
            return killed
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
