import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TrawlBatch
import TrawlCore
import TrawlServer
import TrawlTesting

/// `/v1/batches` end to end on a real socket: a list posted, worked by `trawl batch`'s runner
/// against loopback pages, its progress, its results each once.
@Suite("/v1/batches", .timeLimit(.minutes(5)))
struct BatchRouteTests {
    /// Polls the batch until it is no longer running.
    static func waitUntilFinished(_ client: some TestClientProtocol, id: String) async throws -> [String: Any] {
        var status: [String: Any] = [:]
        try await waitUntil("batch \(id) to finish", interval: .milliseconds(20)) {
            status = try await client.execute(uri: "/v1/batches/\(id)", method: .get).json()
            return status["state"] as? String != "running"
        }
        return status
    }

    @Test func aPostedListIsWorkedAndEachResultAppearsOnce() async throws {
        let site = try LoopbackServer { request in
            request.path == "/gone" ? .status(404) : ServerFixture.page(request.path)
        }
        defer { site.shutdown() }
        let server = try ServerFixture.live(site: site, hosts: ["a.test", "b.test"])
        try await ServerFixture.application(server).test(.live) { client in
            let list = """
                # cats
                http://a.test/one
                http://b.test/two
                http://a.test/one
                http://a.test/gone
                not a url

                """
            let created = try await client.execute(uri: "/v1/batches", method: .post, headers: [.contentType: "text/plain"], body: ByteBuffer(string: list))
            #expect(created.status == .accepted, "\(created.text)")
            let id = try #require(try created.json()["id"] as? String)
            #expect(created.headers[.location] == "/v1/batches/\(id)")

            let status = try await Self.waitUntilFinished(client, id: id)
            #expect(status["state"] as? String == "finished", "\(status)")
            #expect(status["total"] as? Int == 4)
            #expect(status["done"] as? Int == 2)
            #expect(status["failed"] as? Int == 2)
            #expect(status["duplicates"] as? Int == 1)
            #expect(status["intakeComplete"] as? Bool == true)

            let results = try await client.execute(uri: "/v1/batches/\(id)/results", method: .get)
            #expect(results.headers[.contentType]?.hasPrefix("application/x-ndjson") == true)
            let lines = try results.text.split(separator: "\n").map { try JSONDecoder().decode(BatchResultLine.self, from: Data($0.utf8)) }
            #expect(lines.count == 4, "\(results.text)")
            #expect(Set(lines.map(\.input)).count == 4)
            let one = try #require(lines.first { $0.input == "http://a.test/one" })
            #expect(one.status == "done" && one.media?.first?.url == "https://media.test/one.gif" && one.duplicates == 1)
            #expect(lines.first { $0.input == "http://a.test/gone" }?.error?.code == "http-404")
            #expect(lines.first { $0.input == "not a url" }?.error?.code == "invalid-url")
            // Each page fetched once, the duplicate coalesced.
            #expect(site.requests.filter { $0.path == "/one" }.count == 1)

            // `after` skips results already read; the rest are the same lines.
            // A count past every result (even past Int64) reads nothing.
            let past = try await client.execute(uri: "/v1/batches/\(id)/results?after=136311464509124919296", method: .get)
            #expect(past.status == .ok && past.text.isEmpty, "\(past.status) \(past.text)")
            let rest = try await client.execute(uri: "/v1/batches/\(id)/results?after=3", method: .get)
            #expect(rest.text.split(separator: "\n").count == 1)
            #expect(results.text.hasSuffix(rest.text))
            let followed = try await client.execute(uri: "/v1/batches/\(id)/results?follow=true", method: .get)
            #expect(followed.text == results.text)
        }
    }

    /// `POST /v1/batches?probe=true`: each page's media probed as `trawl batch --probe` does, the
    /// dead left out.
    @Test func aBatchPostedWithProbeChecksItsMedia() async throws {
        let gif = MediaBytes.gif(width: 480, height: 270, frames: 12, delay: 5)
        let site = try LoopbackServer { request in
            if request.header("host")?.hasPrefix("media.test") == true {
                return request.path == "/one.gif" ? .ok(headers: [("Content-Type", "image/gif")], body: Data(gif)) : .status(404)
            }
            return ServerFixture.page(request.path)
        }
        defer { site.shutdown() }
        let server = try ServerFixture.live(site: site, hosts: ["a.test", "media.test"]) { $0.trawl.plainHTTP = true }
        try await ServerFixture.application(server).test(.live) { client in
            let list = ByteBuffer(string: "http://a.test/one\nhttp://a.test/gone\n")
            let created = try await client.execute(uri: "/v1/batches?probe=true", method: .post, headers: [.contentType: "text/plain"], body: list)
            #expect(created.status == .accepted, "\(created.text)")
            let id = try #require(try created.json()["id"] as? String)
            #expect(try await Self.waitUntilFinished(client, id: id)["state"] as? String == "finished")
            let results = try await client.execute(uri: "/v1/batches/\(id)/results", method: .get)
            let lines = try results.text.split(separator: "\n").map { try JSONDecoder().decode(BatchResultLine.self, from: Data($0.utf8)) }
            let one = try #require(lines.first { $0.input == "http://a.test/one" }?.media?.first)
            #expect(one.probe?.animated == true && one.probe?.frames == 12, "\(results.text)")
            #expect(lines.first { $0.input == "http://a.test/gone" }?.media?.isEmpty != false, "its one media is dead: \(results.text)")
        }
    }

    @Test func aJSONListWorksTheSame() async throws {
        let site = try LoopbackServer { ServerFixture.page($0.path) }
        defer { site.shutdown() }
        let server = try ServerFixture.live(site: site, hosts: ["a.test"])
        try await ServerFixture.application(server).test(.live) { client in
            let created = try await client.execute(
                uri: "/v1/batches", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"urls": ["http://a.test/x", "http://a.test/y"]}"#))
            #expect(created.status == .accepted, "\(created.text)")
            let id = try #require(try created.json()["id"] as? String)
            let status = try await Self.waitUntilFinished(client, id: id)
            #expect(status["done"] as? Int == 2, "\(status)")
            let results = try await client.execute(uri: "/v1/batches/\(id)/results", method: .get)
            #expect(results.text.split(separator: "\n").count == 2)
        }
    }

    @Test func badBatchesAreJSONErrors() async throws {
        let site = try LoopbackServer { ServerFixture.page($0.path) }
        defer { site.shutdown() }
        let server = try ServerFixture.live(site: site, hosts: ["a.test"]) { $0.limits.maxBodyBytes = 2048 }
        try await ServerFixture.application(server).test(.router) { client in
            let badJSON = try await client.execute(
                uri: "/v1/batches", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: #"{"urls": ["#))
            #expect(badJSON.status == .badRequest)
            #expect(try badJSON.errorCode() == "invalid-json")
            let wrongShape = try await client.execute(
                uri: "/v1/batches", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: #"{"url": "x"}"#))
            #expect(try wrongShape.errorCode() == "invalid-json")
            let empty = try await client.execute(uri: "/v1/batches", method: .post, body: ByteBuffer(string: "# nothing\n\n"))
            #expect(empty.status == .badRequest)
            #expect(try empty.errorCode() == "empty-batch")
            let huge = try await client.execute(
                uri: "/v1/batches", method: .post, body: ByteBuffer(string: String(repeating: "http://a.test/x\n", count: 200)))
            #expect(huge.status == .contentTooLarge)
            #expect(try huge.errorCode() == "request-too-large")
            for id in ["0123456789abcdef", "../../etc/passwd", "x"] {
                let unknown = try await client.execute(uri: "/v1/batches/\(encoded(id))", method: .get)
                #expect(unknown.status == .notFound, "\(id)")
                #expect(try unknown.errorCode() == "not-found")
                #expect(try await client.execute(uri: "/v1/batches/\(encoded(id))/results", method: .get).status == .notFound)
            }
        }
    }

    @Test func aServerWithoutABatchFolderTakesNoBatches() async throws {
        try await ServerFixture.application(try ServerFixture.replaying()).test(.router) { client in
            let response = try await client.execute(uri: "/v1/batches", method: .post, body: ByteBuffer(string: "https://giphy.com/\n"))
            #expect(response.status == .serviceUnavailable)
            #expect(try response.errorCode() == "batches-unavailable")
        }
    }

    /// `trawl serve --replay` (the demo) runs batches on the recordings, as it resolves.
    @Test func aReplayingServerRunsBatchesOnTheRecordings() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-serve-replay-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try ServerFixture.replaying { $0.batchDirectory = folder }
        try await ServerFixture.application(server).test(.live) { client in
            let list = "\(giphyCatPage)\n\(blogPost)\nhttps://unrecorded.example/page\n"
            let created = try await client.execute(uri: "/v1/batches", method: .post, body: ByteBuffer(string: list))
            #expect(created.status == .accepted, "\(created.text)")
            let id = try #require(try created.json()["id"] as? String)
            let status = try await Self.waitUntilFinished(client, id: id)
            #expect(status["state"] as? String == "finished", "\(status)")
            let results = try await client.execute(uri: "/v1/batches/\(id)/results", method: .get)
            let lines = try results.text.split(separator: "\n").map { try JSONDecoder().decode(BatchResultLine.self, from: Data($0.utf8)) }
            #expect(lines.count == 3, "\(results.text)")
            let cat = try #require(lines.first { $0.input == giphyCatPage })
            let catURLs = Set((cat.media ?? []).flatMap { [$0.url] + $0.renditions.map(\.url) })
            #expect(cat.status == "done" && catURLs.contains(giphyCatGIF), "\(results.text)")
            #expect((lines.first { $0.input == blogPost }?.media?.count ?? 0) >= 4, "\(results.text)")
            #expect(lines.first { $0.input == "https://unrecorded.example/page" }?.error?.code == "no-recorded-entry", "\(results.text)")
        }
    }

    @Test func aRestartedServerGoesOnWithUnfinishedBatches() async throws {
        let site = try LoopbackServer { ServerFixture.page($0.path) }
        defer { site.shutdown() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-serve-resume-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // A batch a stopped server left: its list is there, its store not yet made.
        let id = "00112233aabbccdd"
        try Data("http://a.test/p\nhttp://a.test/q\n".utf8).write(to: folder.appendingPathComponent("\(id).urls"))
        _ = try BatchRunner(configuration: BatchConfiguration(), storePath: folder.appendingPathComponent("\(id).sqlite").path, inputs: [], output: nil)
        let server = try ServerFixture.live(site: site, hosts: ["a.test"]) { $0.batchDirectory = folder }
        try await ServerFixture.application(server).test(.live) { client in
            let status = try await Self.waitUntilFinished(client, id: id)
            #expect(status["state"] as? String == "finished", "\(status)")
            #expect(status["done"] as? Int == 2)
        }
    }
}
