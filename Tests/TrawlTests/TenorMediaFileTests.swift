import Foundation
import Testing
import Trawl
import TrawlCore
import TrawlFetch
import TrawlTesting

/// A pasted Tenor media file, against a loopback Tenor (its API and its media host behind
/// `connectTo`): with a key, read as its post (`/v2/posts?ids=`); without one, as the file, and
/// `--explain` says why.
@Suite("Tenor media files")
struct TenorMediaFileTests {
    /// Post 7400000000000000001 is `ZrIUywnkAAE` in base64url; `AAAAM` is the tiny gif's code.
    static let pasted = "https://media1.tenor.com/m/ZrIUywnkAAEAAAAM/otter-juggling.gif"
    static let post = """
        {"results":[{"id":"7400000000000000001","title":"","content_description":"an otter juggling a pebble",
          "itemurl":"https://tenor.com/view/otter-juggling-gif-7400000000000000001","tags":["otter"],
          "media_formats":{
            "gif":{"url":"https://media.tenor.com/ZrIUywnkAAEAAAAC/otter-juggling.gif","duration":2.4,"dims":[498,374],"size":1204331},
            "tinygif":{"url":"https://media.tenor.com/ZrIUywnkAAEAAAAM/otter-juggling.gif","duration":2.4,"dims":[220,165],"size":160210},
            "mp4":{"url":"https://media.tenor.com/ZrIUywnkAAEAAAPo/otter-juggling.mp4","duration":2.4,"dims":[640,480],"size":301224}}}],"next":""}
        """

    static func server() throws -> LoopbackServer {
        try LoopbackServer { request in
            if request.path == "/v2/posts" { return .json(post) }
            if request.path.hasSuffix(".gif") {
                return .ok(headers: [("Content-Type", "image/gif")], body: Data(MediaBytes.gif(width: 220, height: 165, frames: 4)))
            }
            return .status(404)
        }
    }

    static func resolve(_ server: LoopbackServer, key: String?, explain: Bool = false) async throws -> [Media] {
        var configuration = TrawlConfiguration(loader: LoaderConfiguration(timeout: .seconds(10), connectTo: ["::\(server.host):\(server.port)"]))
        configuration.plainHTTP = true
        configuration.search = TrawlConfiguration.Search(tenorKey: key)
        var request = Request(pasted)
        if explain { request.explain = true }
        var media: [Media] = []
        for try await set in SearchProvider(configuration).results(for: request) { media += set.media }
        return media
    }

    @Test(.timeLimit(.minutes(3)))
    func withAKeyTheFileIsReadAsItsPost() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let media = try await Self.resolve(server, key: "test-key")
        #expect(media.count == 1)
        let item = try #require(media.first)
        #expect(item.url == "https://media.tenor.com/ZrIUywnkAAEAAAAC/otter-juggling.gif")
        #expect(item.allURLs.contains("https://media.tenor.com/ZrIUywnkAAEAAAAM/otter-juggling.gif"))
        #expect(item.allURLs.contains("https://media.tenor.com/ZrIUywnkAAEAAAPo/otter-juggling.mp4"))
        #expect(item.title == "an otter juggling a pebble")
        #expect(item.durationSeconds == 2.4)
        #expect(item.provenance.parser == "tenor-api")
        let asked = server.requests.filter { $0.path == "/v2/posts" }
        #expect(asked.count == 1)
        #expect(asked.first?.target.contains("ids=7400000000000000001") == true && asked.first?.target.contains("key=test-key") == true)
        // The post answered: the file itself was not fetched.
        #expect(!server.requests.contains { $0.path.hasSuffix(".gif") })
    }

    @Test(.timeLimit(.minutes(3)))
    func withoutAKeyTheFileIsTheAnswerAndExplainSaysWhy() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let media = try await Self.resolve(server, key: nil, explain: true)
        let item = try #require(media.first)
        #expect(media.count == 1)
        #expect(item.url == Self.pasted)
        #expect(item.evidence?.contains { $0.contains("TRAWL_TENOR_KEY") && $0.contains("7400000000000000001") } == true, "\(item.evidence ?? [])")
        #expect(!server.requests.contains { $0.path == "/v2/posts" })
    }
}
