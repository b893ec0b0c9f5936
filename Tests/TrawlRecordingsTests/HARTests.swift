import Foundation
import Testing
import Trawl
import TrawlCore
import TrawlRecordings
import TrawlTesting

@Suite("HAR archives")
struct HARTests {
    static let recordings = (try? ReplayTransport.archives(at: Corpus.repositoryRoot.appendingPathComponent("Recordings"))) ?? []

    @Test func roundTripKeepsEveryField() throws {
        let payload = Payload(
            body: Data([0x47, 0x49, 0x46, 0x38, 0xFF, 0x00]),  // not UTF-8: stored as base64
            info: PayloadInfo(
                url: URL(string: "https://media.example/final.gif")!, requestURL: URL(string: "https://media.example/start")!,
                status: 200, headers: ["Content-Type": "image/gif", "X-Thing": "1"], origin: .followUp(reason: "oembed")))
        let entry = HAREntry(payload: payload, request: FetchRequest(url: URL(string: "https://media.example/start")!), duration: .milliseconds(12))
        let har = HAR(log: HAR.Log(entries: [entry, HARImporter.entry(body: Data("<p>é</p>".utf8), url: "https://x.example/")]))
        let data = try har.encoded()
        #expect(HARValidator.problems(in: data).isEmpty)
        let back = try HAR.decode(data)
        #expect(back == har)
        #expect(back.log.entries[0].response.content.encoding == "base64")
        #expect(back.log.entries[0].response.content.body == payload.body)
        #expect(back.log.entries[0].origin == .followUp(reason: "oembed"))
        #expect(back.log.entries[0].finalURL == "https://media.example/final.gif")
        #expect(back.log.entries[1].response.content.text == "<p>é</p>")
    }

    @Test(arguments: recordings)
    func everyRecordingInTheRepositoryIsHAR12(_ file: URL) throws {
        let problems = HARValidator.problems(in: try Data(contentsOf: file))
        #expect(problems.isEmpty, "\(file.lastPathComponent): \(problems)")
        _ = try HAR.read(from: file)
    }

    @Test func validatorNamesWhatIsMissing() {
        let data = Data(
            #"{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"entries":[{"startedDateTime":"2024-01-01T00:00:00Z","time":1,"request":{"method":"GET","url":"https://a.example/"},"response":{"status":200},"cache":{},"timings":{"send":0,"wait":0,"receive":0}}]}}"#
                .utf8)
        let problems = HARValidator.problems(in: data)
        #expect(problems.contains("log.entries[0].request.httpVersion: missing"))
        #expect(problems.contains("log.entries[0].response.content: missing"))
    }

    @Test func unreadableArchiveNamesTheFileAndThePath() throws {
        let data = Data(#"{"log":{"entries":[{"request":{"method":"GET"},"response":{"status":200}}]}}"#.utf8)
        #expect {
            try HAR.decode(data, file: "broken.har")
        } throws: { error in
            let error = error as? RecordingError
            return error?.code == .invalidHAR && error?.subject == "broken.har" && error?.message.contains("entries[0].request.url") == true
        }
    }

    /// A browser-style archive: pages, a 301 recorded as its own entry, a gzip header on an
    /// already-decoded body, base64 content, fields Trawl does not know, missing optional ones.
    @Test func archiveFromAnotherToolReplays() async throws {
        let html =
            #"<html><head><meta property="og:video" content="https://media.example/clip.mp4"><meta property="og:video:type" content="video/mp4"></head></html>"#
        let har = """
            {"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},
             "pages":[{"startedDateTime":"2024-05-01T10:00:00.000Z","id":"page_1","title":"x","pageTimings":{"onLoad":120}}],
             "entries":[
              {"pageref":"page_1","startedDateTime":"2024-05-01T10:00:00.000Z","time":30,"_priority":"VeryHigh",
               "request":{"method":"GET","url":"http://www.site.example/v/1","httpVersion":"http/2.0","headers":[],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},
               "response":{"status":301,"statusText":"","httpVersion":"http/2.0","headers":[{"name":"location","value":"https://site.example/v/1?ref=x"}],
                 "cookies":[],"content":{"size":0,"mimeType":"x-unknown"},"redirectURL":"https://site.example/v/1?ref=x","headersSize":-1,"bodySize":-1},
               "cache":{},"timings":{"blocked":-1,"dns":-1,"ssl":-1,"connect":-1,"send":0,"wait":29,"receive":1}},
              {"startedDateTime":"2024-05-01T10:00:00.050Z","time":40,
               "request":{"method":"GET","url":"https://site.example/v/1?ref=x","httpVersion":"http/2.0","headers":[{"name":":authority","value":"site.example"}]},
               "response":{"status":200,"statusText":"","httpVersion":"http/2.0",
                 "headers":[{"name":"content-type","value":"text/html; charset=utf-8"},{"name":"content-encoding","value":"gzip"}],
                 "content":{"size":\(html.utf8.count),"mimeType":"text/html","text":"\(Data(html.utf8).base64EncodedString())","encoding":"base64"}},
               "timings":{"send":0,"wait":39,"receive":1}}
             ]}}
            """
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-har-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("browser.har")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(har.utf8).write(to: file)
        let provider = SearchProvider(.init(replay: try TrawlConfiguration.Replay(path: file)))
        var media: [Media] = []
        for try await set in provider.results(for: Request("http://www.site.example/v/1")) { media += set.media }
        #expect(media.map(\.url) == ["https://media.example/clip.mp4"])
        #expect(media.first?.page == "https://site.example/v/1?ref=x")
    }
}
