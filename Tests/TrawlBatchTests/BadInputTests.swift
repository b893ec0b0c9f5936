import Foundation
import Testing
import TrawlBatch
import TrawlCore
import TrawlTesting

/// A list with every kind of bad line: each becomes a failed result naming it, and the batch
/// goes on.
@Suite("Batch bad input", .timeLimit(.minutes(5)))
struct BadInputTests {
    @Test("Blank lines and comments are skipped; bad lines fail with their reason; good ones are done")
    func everyKindOfBadLine() async throws {
        let fixture = try BatchFixture(hosts: ["a.test"]) { BatchFixture.page($0.path) }
        defer { fixture.server.shutdown() }
        var bytes = Data()
        func line(_ text: String) { bytes.append(Data((text + "\n").utf8)) }
        line("# a comment")
        line("")
        line("   \t ")
        line("http://a.test/good")
        line("  http://a.test/padded  ")
        line("not a url")
        line("ftp://a.test/file.gif")
        line("javascript:alert(1)")
        line("http://")
        line("http://a.test/" + String(repeating: "z", count: 20_000))
        bytes.append(contentsOf: [0x68, 0x74, 0x74, 0x70, 0x3A, 0x2F, 0x2F, 0xFF, 0xFE, 0x2F, 0x0A])  // "http://\xFF\xFE/"
        bytes.append(Data("http://a.test/crlf\r\n".utf8))
        line("HTTP://A.TEST/good")  // the same URL, differently spelled
        bytes.append(Data("http://a.test/no-newline-at-end".utf8))
        try bytes.write(to: fixture.list)

        let report = try await fixture.run(fixture.configuration())
        let results = try fixture.results()
        #expect(results.count == 10, "\(results.map(\.input))")
        func result(_ input: String) -> BatchResultLine? { results.first { $0.input.hasPrefix(input) } }
        #expect(result("http://a.test/good")?.status == "done")
        #expect(result("http://a.test/good")?.duplicates == 1)
        #expect(result("http://a.test/padded")?.status == "done")
        #expect(result("http://a.test/crlf")?.url == "http://a.test/crlf")
        #expect(result("http://a.test/no-newline-at-end")?.status == "done")
        #expect(result("not a url")?.error?.code == "invalid-url")
        #expect(result("ftp://")?.error?.code == "unsupported-scheme")
        #expect(result("javascript:")?.error?.code == "unsupported-scheme")
        #expect(result("http://a.test/zzzz")?.error?.code == "line-too-long")
        #expect(result("http://a.test/zzzz")!.input.count < 200)
        #expect(results.contains { $0.error?.code == "invalid-utf8" })
        #expect(results.filter { $0.input == "http://" }.first?.error?.code == "invalid-url")
        // Every failure names its line.
        for failed in results where failed.status == "failed" {
            #expect(failed.error?.message.hasPrefix("line ") == true, "\(failed)")
        }
        #expect(report.summary.progress.total == 10)
    }

    @Test("An unreadable list is an error naming it; a missing store folder is too")
    func unreadable() async throws {
        let fixture = try BatchFixture(hosts: []) { _ in .hangUp }
        defer { fixture.server.shutdown() }
        await #expect { try await fixture.run(fixture.configuration(), inputs: ["/nonexistent/urls.txt"]) } throws: { error in
            "\(error)".contains("/nonexistent/urls.txt")
        }
        #expect { try BatchRunner(configuration: .init(), storePath: "/nonexistent/dir/s.sqlite", inputs: [], output: nil) } throws: { error in
            "\(error)".contains("/nonexistent/dir/s.sqlite")
        }
    }
}
