import Foundation
import Testing
import TrawlTesting

/// `trawl batch` run twice over a list that grew, standard input, bad lines, `batch status`.
@Suite("trawl batch on the command line", .timeLimit(.minutes(5)), .tags(.process))
struct BatchCommandTests {
    /// Every page has one clip named after its path.
    static func server() throws -> LoopbackServer {
        try LoopbackServer { request in
            .html(
                """
                <html><head><meta property="og:video:url" content="https://media.example.com\(request.path).mp4">
                <meta property="og:video:type" content="video/mp4"></head><body></body></html>
                """)
        }
    }

    struct Run {
        let folder: URL
        var list: URL { folder.appendingPathComponent("urls.txt") }
        var out: URL { folder.appendingPathComponent("results.jsonl") }

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-batch-cli-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }

        func batch(_ arguments: [String], server: LoopbackServer, input: String? = nil) async throws -> CommandRun {
            let binary = try #require(CommandRun.builtExecutable("trawl"), "the trawl executable is built beside the tests")
            return try await CommandRun.run(
                binary,
                ["batch"] + arguments + ["--out", out.path, "--connect-to", "::127.0.0.1:\(server.port)", "--plain-http", "--no-progress-bar"],
                input: input, in: folder)
        }

        /// The output's lines as objects, keyed by input.
        func results() throws -> [String: [[String: Any]]] {
            let text = try String(contentsOf: out, encoding: .utf8)
            var byInput: [String: [[String: Any]]] = [:]
            for line in text.split(separator: "\n") {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                byInput[object["input"] as? String ?? "", default: []].append(object)
            }
            return byInput
        }
    }

    @Test func aGrownListAddsItsNewURLsAndRedoesNothing() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let run = try Run()
        try "https://a.example/1\nhttps://b.example/2\n".write(to: run.list, atomically: true, encoding: .utf8)
        let first = try await run.batch([run.list.path], server: server)
        #expect(first.status == 0, "\(first.stderr)")
        let requestsAfterFirst = server.requests.count

        // Lines appended to the same list.
        let handle = try FileHandle(forWritingTo: run.list)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("https://c.example/3\nhttps://a.example/1\n".utf8))
        try handle.close()
        let second = try await run.batch([run.list.path], server: server)
        #expect(second.status == 0, "\(second.stderr)")
        let results = try run.results()
        #expect(Set(results.keys) == ["https://a.example/1", "https://b.example/2", "https://c.example/3"])
        #expect(results.values.allSatisfy { $0.count == 1 }, "each input exactly once")
        // Only the new page was fetched.
        #expect(server.requests.count - requestsAfterFirst == 1, "\(server.requests.map(\.target))")

        // A third run reads new URLs from standard input into the same store.
        let third = try await run.batch(
            ["-", "--store", run.folder.appendingPathComponent("results.sqlite").path], server: server,
            input: "https://d.example/4\nhttps://b.example/2\n")
        #expect(third.status == 0, "\(third.stderr)")
        let after = try run.results()
        #expect(Set(after.keys) == ["https://a.example/1", "https://b.example/2", "https://c.example/3", "https://d.example/4"])
        #expect(after.values.allSatisfy { $0.count == 1 })
        #expect(server.requests.count - requestsAfterFirst == 2)
    }

    @Test func aBadLineIsReportedOnceAcrossRunsAndListsAndCounted() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let run = try Run()
        try "not a url\nhttps://a.example/1\nftp://x.example/f\n".write(to: run.list, atomically: true, encoding: .utf8)
        let first = try await run.batch([run.list.path], server: server)
        #expect(first.status == 1, "failed lines make exit 1: \(first.stderr)")
        // The final progress line counts the bad lines as finished and failed.
        let progress = try #require(first.stderr.split(separator: "\n").last { $0.hasPrefix("trawl batch: ") && $0.contains(" failed") })
        #expect(progress.contains("3/3"), "\(progress)")
        #expect(progress.contains("2 failed"), "\(progress)")

        // The same bad line in another list, and the same list grown, in a second run.
        let other = run.folder.appendingPathComponent("more.txt")
        try "not a url\nhttps://b.example/2\n".write(to: other, atomically: true, encoding: .utf8)
        let second = try await run.batch([other.path], server: server)
        #expect(second.status == 1)
        let results = try run.results()
        #expect(results["not a url"]?.count == 1, "a bad line is reported once")
        #expect(results["ftp://x.example/f"]?.count == 1)
        #expect((results["not a url"]?.first?["error"] as? [String: Any])?["code"] as? String == "invalid-url")
        #expect(results["https://b.example/2"]?.count == 1)
    }

    @Test func statusFindsTheStoreBesideTheOutput() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let run = try Run()
        try "https://a.example/1\nbad line here\n".write(to: run.list, atomically: true, encoding: .utf8)
        _ = try await run.batch([run.list.path], server: server)
        let binary = try #require(CommandRun.builtExecutable("trawl"))
        // As `batch` does: results.jsonl in the working folder → results.sqlite beside it.
        let status = try await CommandRun.run(binary, ["batch", "status"], in: run.folder)
        #expect(status.status == 0, "\(status.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], "JSON when piped: \(status.stdout)")
        #expect(object["done"] as? Int == 1)
        #expect(object["failed"] as? Int == 1)
        let missing = try await CommandRun.run(binary, ["batch", "status", "--out", "elsewhere.jsonl"], in: run.folder)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("elsewhere.sqlite"))
    }

    @Test func ctrlCStopsCleanlyPrintsTheSummaryAndTheNextRunFinishes() async throws {
        // Pages under /slow/ take minutes (a byte every 30 s); the rest answer at once.
        let slow = try LoopbackServer { request in
            request.path.hasPrefix("/slow/")
                ? .drip(headers: [("Content-Type", "text/html")], chunks: Array(repeating: Data("<p>".utf8), count: 10), interval: .seconds(30))
                : .html(
                    #"<meta property="og:video:url" content="https://media.example.com\#(request.path).mp4"><meta property="og:video:type" content="video/mp4">"#
                )
        }
        defer { slow.shutdown() }
        let run = try Run()
        let fast = (1...3).map { "https://fast\($0).example/page" }
        let stuck = (1...6).map { "https://slow\($0).example/slow/\($0)" }
        try (fast + stuck).joined(separator: "\n").write(to: run.list, atomically: true, encoding: .utf8)

        let binary = try #require(CommandRun.builtExecutable("trawl"))
        let process = Process()
        process.environment = CommandRun.isolatedEnvironment()
        process.executableURL = binary
        process.currentDirectoryURL = run.folder
        process.arguments = [
            "batch", run.list.path, "--out", run.out.path, "--connect-to", "::127.0.0.1:\(slow.port)", "--plain-http", "--no-progress-bar",
        ]
        let errors = run.folder.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardOutput = FileHandle.nullDevice
        let exited = process.watchExit()
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Interrupt once the fast pages are written (the output file is their only sign) and
        // the slow ones are in flight (the server has their requests; no answer is coming).
        try await waitUntil("the fast pages in the output", interval: .milliseconds(10)) {
            ((try? String(contentsOf: run.out, encoding: .utf8))?.split(separator: "\n").count ?? 0) >= fast.count
        }
        try await slow.waitForRequests(for: "the slow pages in flight") { $0.filter { $0.path.hasPrefix("/slow/") }.count >= stuck.count }
        kill(process.processIdentifier, SIGINT)
        // The termination handler runs once the exit status is set: nothing more to wait for.
        try await exited.wait(for: "trawl batch to stop on SIGINT")
        let stderr = try String(contentsOf: errors, encoding: .utf8)
        #expect(process.terminationStatus == 130, "\(stderr)")
        #expect(stderr.contains("interrupted"), "\(stderr)")
        #expect(stderr.contains("URLs:"), "the summary is printed: \(stderr)")
        // Nothing is left running; the slow pages wait in the store, the fast ones are written once.
        let status = try await CommandRun.run(binary, ["batch", "status", "--out", run.out.path, "--json"], in: run.folder)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any], "\(status.stdout)")
        #expect(object["running"] as? Int == 0)
        #expect(object["done"] as? Int == fast.count)
        // Back in the store: pending (or waiting to retry, had an attempt failed before Ctrl-C).
        #expect((object["pending"] as? Int ?? 0) + (object["retry-later"] as? Int ?? 0) == stuck.count, "\(object) \(stderr)")
        #expect(stderr.contains("stopping"), "the run stopped on the signal, not on its own: \(stderr)")
        #expect(Set(try run.results().keys) == Set(fast))

        // The same command goes on: the slow pages answer now (a second server on another port).
        let quick = try Self.server()
        defer { quick.shutdown() }
        let again = try await run.batch([run.list.path], server: quick)
        #expect(again.status == 0, "\(again.stderr)")
        let results = try run.results()
        #expect(Set(results.keys) == Set(fast + stuck))
        #expect(results.values.allSatisfy { $0.count == 1 }, "every input exactly once")
    }
}
