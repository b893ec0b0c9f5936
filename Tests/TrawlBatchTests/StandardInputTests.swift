import Foundation
import Testing
import TrawlTesting

/// `producer | trawl batch -`: URLs written one at a time are fetched as they arrive, and the
/// run ends when the producer closes the pipe.
@Suite("Batch reads a list from standard input as it is written", .timeLimit(.minutes(5)), .tags(.process))
struct StandardInputTests {
    @Test("Each URL is done while the writer still holds the pipe open")
    func urlsAreFetchedAsTheyArrive() async throws {
        let binary = try #require(KillTests.trawlBinary, "the trawl executable is built beside the tests")
        let fixture = try BatchFixture(hosts: ["a.test"]) { request in BatchFixture.page(request.path) }
        defer { fixture.server.shutdown() }
        let process = Process()
        process.environment = CommandRun.isolatedEnvironment()
        process.executableURL = binary
        process.arguments =
            ["batch", "-", "--out", fixture.output.path, "--store", fixture.store, "--quiet"]
            + fixture.connectTo.flatMap { ["--connect-to", $0] }
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let exited = process.watchExit()
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        func lines() -> Int {
            ((try? String(contentsOf: fixture.output, encoding: .utf8)) ?? "").split(separator: "\n").count
        }
        for n in 1...3 {
            input.fileHandleForWriting.write(Data("http://a.test/p/\(n)\n".utf8))
            // The output file is the only sign of a URL done: polled, with a bounded wait.
            try await waitUntil("URL \(n) to be done while the pipe stays open", interval: .milliseconds(10)) { lines() >= n }
        }
        try input.fileHandleForWriting.close()
        try await exited.wait(for: "trawl batch to end with its input", within: .seconds(120))
        #expect(process.terminationStatus == 0)
        #expect(try fixture.results().map(\.input).sorted() == ["http://a.test/p/1", "http://a.test/p/2", "http://a.test/p/3"])
    }
}
