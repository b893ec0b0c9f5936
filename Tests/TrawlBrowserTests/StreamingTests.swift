import Dispatch
import Foundation
import Synchronization
import Testing
import Trawl
import TrawlBrowser
import TrawlCore
import TrawlHTML
import TrawlParsers
import TrawlTesting

extension BrowserTests {
    /// A rendered page's XHR media go out as a result set as soon as the response is in, long before
    /// the page settles; the DOM follows as a later set with only what is new.
    @Suite struct StreamingTests {
        /// `/slow` held by the loopback server until the test lets it go.
        final class HeldRequest: Sendable {
            private let gate = DispatchSemaphore(value: 0)
            private let state = Mutex((arrived: false, answered: false))
            var arrived: Bool { state.withLock { $0.arrived } }
            var answered: Bool { state.withLock { $0.answered } }

            /// Called on the server's connection thread: blocks until ``release()``.
            func hold() -> TestResponse {
                state.withLock { $0.arrived = true }
                _ = gate.wait(timeout: .now() + 30)
                state.withLock { $0.answered = true }
                return .json(#"{"done":true}"#)
            }

            func release() { gate.signal() }
        }

        /// The page asks for `/slow` and its API at once; the API's media are in the JSON, and the
        /// script builds a `<video>` only when `/slow` answers.
        static func site(_ held: HeldRequest) throws -> BrowserSite {
            // A held request counts against settling for the whole test: only the release settles it.
            try BrowserSite(pageBudget: .seconds(20), stalledRequestAge: .seconds(30)) { request in
                switch request.path {
                case "/":
                    .html(
                        """
                        <html><head><title>Reel</title></head><body><main></main><script>
                        fetch('/slow').then(r => r.json()).then(() => {
                          const v = document.createElement('video'); v.src = 'https://media.test/after-slow.mp4';
                          document.querySelector('main').appendChild(v);
                        });
                        fetch('/api/reel').then(r => r.json()).then(d => {
                          document.querySelector('main').insertAdjacentHTML('afterbegin', '<img src="' + d.items[0].gif + '">');
                        });
                        </script></body></html>
                        """)
                case "/api/reel": .json(#"{"items":[{"title":"first","gif":"https://media.test/first.gif"}]}"#)
                case "/slow": held.hold()
                default: .status(404)
                }
            }
        }

        @Test func theXHRSetArrivesBeforeThePageSettlesAndTheDOMSetAddsOnlyWhatIsNew() async throws {
            let held = HeldRequest()
            let site = try Self.site(held)
            let environment = Environment(
                transport: BrowserTransport(pool: site.pool), scanner: HTMLScanner(), parsers: GenericParsers.chain(siteParsers: Sites.parsers))
            let provider = SearchProvider(environment: environment)
            var sets: [ResultSet] = []
            var heldWhenFirstArrived: Bool?
            do {
                for try await set in provider.results(for: Request(site.url("/").absoluteString)) {
                    if sets.isEmpty {
                        heldWhenFirstArrived = !held.answered
                        held.release()
                    }
                    sets.append(set)
                }
            } catch {
                held.release()
                throw error
            }
            held.release()
            await site.close()

            // The first set came while the server still held `/slow` open: the page had not settled.
            #expect(heldWhenFirstArrived == true)
            let first = try #require(sets.first)
            #expect(first.media.map(\.url) == ["https://media.test/first.gif"])
            #expect(first.media.allSatisfy { $0.provenance.origin == .browserXHR })
            // The DOM came after `/slow` answered (its video is built then), without the GIF again.
            let rest = sets.dropFirst().flatMap(\.media)
            #expect(rest.map(\.url) == ["https://media.test/after-slow.mp4"])
            #expect(rest.allSatisfy { $0.provenance.origin == .domSnapshot })
            #expect(held.answered)
        }

        @Test func cancellingAfterTheFirstSetClosesThePage() async throws {
            let held = HeldRequest()
            let site = try Self.site(held)
            let environment = Environment(
                transport: BrowserTransport(pool: site.pool), scanner: HTMLScanner(), parsers: GenericParsers.chain(siteParsers: Sites.parsers))
            let provider = SearchProvider(environment: environment)
            var first: ResultSet?
            for try await set in provider.results(for: Request(site.url("/").absoluteString)) {
                first = set
                break
            }
            #expect(first?.media.first?.provenance.origin == .browserXHR)
            // The page's tab closes while `/slow` is still held: the stream's end reached the page.
            try await waitUntil("the page's tab to close", within: .seconds(60)) { await site.pool.openPageCount == 0 }
            #expect(!held.answered)
            held.release()
            await site.close()
        }
    }
}
