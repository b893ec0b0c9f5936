import Foundation
import Glibc
import Testing
import TrawlBrowser
import TrawlCore
import TrawlTesting

extension BrowserTests {
    /// Sizes and servers at the edges: body caps, multi-megabyte DOMs, a server that never answers.
    @Suite struct LimitTests {
        @Test func bodiesOverTheCapAreNotKept() async throws {
            let big = #"{"pad":""# + String(repeating: "x", count: 20_000) + #""}"#
            let site = try BrowserSite(maxBodyBytes: 10_000) { request in
                switch request.path {
                case "/": .html("<html><body><script>fetch('/big').then(() => fetch('/small'))</script></body></html>")
                case "/big": .json(big)
                case "/small": .json(#"{"gif":"/s.gif"}"#)
                default: .status(404)
                }
            }
            let page = try await site.pool.render(FetchRequest(url: site.url("/")))
            await site.close()
            #expect(page.responses.map(\.info.url.path) == ["/small"])
            #expect(site.server.requests.contains { $0.path == "/big" })
        }

        @Test func aMultiMegabyteDOMComesThroughWhole() async throws {
            let site = try BrowserSite(pageBudget: .seconds(20)) { request in
                request.path == "/"
                    ? .html(
                        """
                        <html><body><script>
                        const parts = [];
                        for (let i = 0; i < 30000; i++) parts.push('<p data-i="' + i + '">item ' + i + ' <a href="/g/' + i + '.gif">gif</a></p>');
                        document.body.innerHTML = parts.join('');
                        </script></body></html>
                        """) : .status(404)
            }
            let page = try await site.pool.render(FetchRequest(url: site.url("/")))
            await site.close()
            #expect(page.settled)
            #expect(page.html.count > 1_500_000)
            let html = String(decoding: page.html, as: UTF8.self)
            #expect(html.contains(#"<p data-i="29999">item 29999 <a href="/g/29999.gif">gif</a></p>"#))
            #expect(html.hasSuffix("</html>"))
        }

        @Test func aServerThatNeverAnswersFailsThePageWithinItsBudget() async throws {
            // A socket that listens but never accepts: connections complete, no response ever comes.
            let silent = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #expect(silent >= 0)
            defer { close(silent) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(silent, $0, length) == 0 && getsockname(silent, $0, &length) == 0 }
            }
            #expect(bound && listen(silent, 16) == 0)
            let port = Int(UInt16(bigEndian: address.sin_port))

            let site = try BrowserSite(pageBudget: .seconds(3)) { _ in .html("<html><body><p>fine</p></body></html>") }
            let pool = BrowserPool(
                configuration: BrowserConfiguration(pageBudget: .seconds(3), connectTo: ["silent.test::127.0.0.1:\(port)", "::127.0.0.1:\(site.server.port)"]))
            let clock = ContinuousClock()
            let start = clock.now
            await #expect(throws: BrowserError.self) {
                do {
                    _ = try await pool.render(FetchRequest(url: URL(string: "http://silent.test/")!))
                } catch let error as BrowserError {
                    #expect(error.code == .timedOut)
                    #expect(error.isRetryable)
                    throw error
                }
            }
            #expect(clock.now - start < .milliseconds(4500))
            let page = try await pool.render(FetchRequest(url: site.url("/")))
            #expect(String(decoding: page.html, as: UTF8.self).contains("fine"))
            await pool.shutdown()
            await site.close()
        }
    }
}
