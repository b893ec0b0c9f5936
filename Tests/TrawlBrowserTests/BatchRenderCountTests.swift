import Foundation
import Testing
import TrawlBatch
import TrawlBrowser
import TrawlCore
import TrawlStore
import TrawlTesting

extension BrowserTests {
    /// `trawl batch` counts the pages it rendered: in its progress, its closing summary, and the
    /// store that `trawl batch status` reads.
    @Suite struct BatchRenderCountTests {
        @Test func theSummaryCountsPagesRenderedInTheBrowser() async throws {
            try requireBrowser()
            let server = try LoopbackServer(keepsAlive: true) { request in
                switch request.path {
                case let path where path.hasPrefix("/static/"):
                    .html(#"<html><head><title>Static</title><meta property="og:image" content="https://media.test\#(path).gif"></head><body></body></html>"#)
                case let path where path.hasPrefix("/script/"):
                    .html(
                        """
                        <html><head><title>Script</title></head><body><div id="root"></div><script>
                        fetch('/api\(path)').then(r => r.json()).then(d => { root.innerHTML = '<img src="' + d.gif + '" width="10" height="10">'; });
                        </script></body></html>
                        """)
                case let path where path.hasPrefix("/api/"):
                    .json(#"{"gif":"https://media.test\#(path.dropFirst(4)).gif"}"#)
                default: .status(404)
                }
            }
            defer { server.shutdown() }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-batch-render-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let list = folder.appendingPathComponent("urls.txt")
            let urls = ["/static/a", "/script/b", "/static/c", "/script/d", "/static/e"].map { "http://site.test\($0)" }
            try Data((urls.joined(separator: "\n") + "\n").utf8).write(to: list)

            var configuration = BatchConfiguration()
            configuration.concurrency = 2
            configuration.resolve.loader.connectTo = ["site.test:80:127.0.0.1:\(server.port)"]
            configuration.resolve.loader.timeout = .seconds(10)
            configuration.resolve.browser = .auto
            configuration.resolve.browserConfiguration = BrowserConfiguration(
                quietWindow: .milliseconds(200), pageBudget: .seconds(8), commandTimeout: .seconds(5))
            let store = folder.appendingPathComponent("results.sqlite").path
            let runner = try BatchRunner(
                configuration: configuration, storePath: store, inputs: [list.path], output: folder.appendingPathComponent("out.jsonl").path)
            let report = try await runner.run()

            #expect(report.summary.progress[.done] == 5)
            #expect(report.summary.progress.mediaFound == 5)
            // The two script-driven pages, and only they, went through the browser.
            #expect(report.summary.progress.pagesRendered == 2)
            let text = BatchSummaryText.render(report.summary, elapsed: report.elapsed, finishedThisRun: report.finishedThisRun)
            #expect(text.contains("pages rendered in the browser: 2"))
            // `trawl batch status` reads the same figure from the store, after the run.
            #expect(try JobStore(path: store).summary().progress.pagesRendered == 2)
            var snapshot = BatchSnapshot()
            snapshot.pagesRendered = 2
            #expect(BatchProgress.figures(snapshot).contains("2 rendered"))
        }

        @Test func aFailedRenderIsTheStaticResultWithTheRenderError() async throws {
            try requireBrowser()
            let server = try LoopbackServer(keepsAlive: true) { request in
                request.path == "/hung"
                    ? .html(#"<html><head><title>Hung</title></head><body><div id="root"></div><script>while (true) {}</script></body></html>"#)
                    : .status(404)
            }
            defer { server.shutdown() }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-batch-render-failed-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let list = folder.appendingPathComponent("urls.txt")
            try Data("http://site.test/hung\n".utf8).write(to: list)

            var configuration = BatchConfiguration()
            configuration.resolve.loader.connectTo = ["site.test:80:127.0.0.1:\(server.port)"]
            configuration.resolve.loader.timeout = .seconds(10)
            configuration.resolve.browser = .auto
            configuration.resolve.browserConfiguration = BrowserConfiguration(
                quietWindow: .milliseconds(200), pageBudget: .seconds(2), commandTimeout: .seconds(5))
            let out = folder.appendingPathComponent("out.jsonl")
            let runner = try BatchRunner(
                configuration: configuration, storePath: folder.appendingPathComponent("results.sqlite").path, inputs: [list.path], output: out.path)
            let report = try await runner.run()

            #expect(report.summary.progress[.done] == 1)
            #expect(report.summary.progress[.failed] == 0)
            let lines = try String(contentsOf: out, encoding: .utf8).split(separator: "\n")
            let line = try JSONDecoder().decode(BatchResultLine.self, from: Data(try #require(lines.first).utf8))
            #expect(line.status == "done")
            #expect(line.httpStatus == 200)
            #expect(line.media == [])
            #expect(line.error == nil)
            #expect(line.renderError?.code == "script-hung")
            #expect(line.renderError?.message.contains("site.test/hung") == true, "\(String(describing: line.renderError))")
        }
    }
}
