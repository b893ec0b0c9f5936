import Foundation
import Testing
import Trawl
import TrawlCore
import TrawlFetch
import TrawlTesting

/// Bytes as evidence end to end: images a page shows without its markup saying what they are
/// are read for their first bytes (ranged GETs to a loopback server serving real GIF bytes),
/// and their bytes decide — on an article or a page that names nothing, never on an item's page
/// that names its item.
@Suite("Bytes as evidence", .timeLimit(.minutes(2)))
struct BytesEvidenceTests {
    static let animation = MediaBytes.gif(width: 480, height: 270, frames: 12, delay: 5)
    static let icon = MediaBytes.gif(width: 16, height: 16, frames: 4)
    static let still = MediaBytes.gif(width: 600, height: 400, frames: 1, loops: nil)
    /// A GIF whose first frame lies past the 64 KiB a probe reads: its looping extension says it moves.
    static let longComment = MediaBytes.gif(width: 400, height: 300, frames: 6, commentBytes: 90_000)

    static let listicleGIFs = ["one", "two", "three", "four", "five", "six", "seven"].map { "http://media.test/gifs/\($0).gif" }

    /// A GIF listicle: seven GIFs in paragraphs, no sizes declared, two of them lazy; a tiny animation
    /// and a still chart in the same body.
    static let listicle = """
        <html><head><title>Seven otters</title><meta property="og:type" content="article">
        <meta property="og:title" content="Seven otters"><meta property="og:image" content="http://media.test/lede.jpg"></head>
        <body><article><h1>Seven otters that will make your day</h1>
        <p>Otters are the best.</p><p><img src="\(listicleGIFs[0])"></p>
        <p>They hold hands.</p><p><img src="\(listicleGIFs[1])" alt="holding hands"></p>
        <p><img src="\(listicleGIFs[2])"></p><p>And they swim.</p>
        <p><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="\(listicleGIFs[3])"></p>
        <p><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="\(listicleGIFs[4])"></p>
        <p><img src="\(listicleGIFs[5])"></p><p><img src="\(listicleGIFs[6])"></p>
        <p>Loading <img src="http://media.test/gifs/tiny.gif"></p>
        <p><img src="http://media.test/gifs/chart.gif"></p>
        </article></body></html>
        """

    static func server() throws -> LoopbackServer {
        try LoopbackServer { request in
            switch request.path {
            case "/listicle": return .html(listicle)
            case "/one-gif": return .html("<html><head><title>a gif</title></head><body><p><img src=\"http://media.test/gifs/solo.gif\"></p></body></html>")
            case "/late-frame": return .html("<html><head><title>a gif</title></head><body><p><img src=\"http://media.test/gifs/late.gif\"></p></body></html>")
            case "/post":
                return .html(
                    """
                    <html><head><title>a clip</title><meta property="og:type" content="video.other">
                    <meta property="og:video" content="http://media.test/clip.mp4"><meta property="og:video:type" content="video/mp4"></head>
                    <body><article><video src="http://media.test/clip.mp4"></video></article>
                    <div><img src="http://media.test/gifs/other.gif"></div></body></html>
                    """)
            default: break
            }
            let files: [String: [UInt8]] = [
                "/gifs/tiny.gif": icon, "/gifs/chart.gif": still, "/gifs/late.gif": longComment,
            ]
            let bytes = files[request.path] ?? (request.path.hasPrefix("/gifs/") ? animation : nil)
            guard let bytes else { return .status(404) }
            if let range = request.header("range"), range.hasPrefix("bytes=0-"), let last = Int(range.dropFirst("bytes=0-".count)) {
                let end = min(last, bytes.count - 1)
                return .ok(
                    status: 206, headers: [("Content-Type", "image/gif"), ("Content-Range", "bytes 0-\(end)/\(bytes.count)")],
                    body: Data(bytes[0...end]))
            }
            return .ok(headers: [("Content-Type", "image/gif")], body: Data(bytes))
        }
    }

    /// Limits whose budget no loaded machine reaches: these tests are about what the bytes say,
    /// not about time (the budget has a test of its own, on a test clock).
    static let patient: TrawlConfiguration.BytesEvidenceLimits = {
        var limits = TrawlConfiguration.BytesEvidenceLimits()
        limits.budget = .seconds(90)
        return limits
    }()

    static func resolve(
        _ path: String, on server: LoopbackServer, bytesEvidence: TrawlConfiguration.BytesEvidenceLimits? = patient, explain: Bool = false
    ) async throws -> (media: [Media], dropped: [Media]) {
        var configuration = TrawlConfiguration(loader: LoaderConfiguration(timeout: .seconds(10), connectTo: ["::\(server.host):\(server.port)"]))
        configuration.bytesEvidence = bytesEvidence
        var request = Request("http://page.test\(path)")
        request.explain = explain
        var media: [Media] = []
        var dropped: [Media] = []
        for try await set in SearchProvider(configuration).results(for: request) {
            media += set.media
            dropped += set.dropped ?? []
        }
        return (media, dropped)
    }

    @Test func aGIFListicleKeepsEveryGIFItsBytesProveAndNotTheTinyOneOrTheStill() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let (media, dropped) = try await Self.resolve("/listicle", on: server, explain: true)
        #expect(media.map(\.url) == Self.listicleGIFs)
        for item in media {
            #expect(item.explanation?.rule == "animated-in-its-bytes", "\(item.url): \(String(describing: item.explanation))")
            #expect(item.width == 480 && item.height == 270)
            #expect(item.pageKind == PageKind(.article, reason: "og:type article"))
            #expect(item.evidence?.contains("bytes: gif 480×270, animated, 12 frames read") == true, "\(item.evidence ?? [])")
        }
        // The last verdict told is the one that stands.
        let rules = Dictionary(dropped.map { ($0.url, $0.explanation?.rule ?? "") }, uniquingKeysWith: { _, last in last })
        #expect(rules["http://media.test/gifs/tiny.gif"] == "small-in-its-bytes")
        #expect(rules["http://media.test/gifs/chart.gif"] == "still-in-its-bytes")
    }

    @Test func withoutBytesTheListicleLosesItsGIFs() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let (media, _) = try await Self.resolve("/listicle", on: server, bytesEvidence: nil)
        #expect(media.filter { Self.listicleGIFs.contains($0.url) }.count < 2)
        #expect(!server.requests.map(\.path).contains { $0.hasPrefix("/gifs/") })
    }

    @Test func aPageWhoseOnlyMediaIsOneUnsizedGIF() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let (media, _) = try await Self.resolve("/one-gif", on: server)
        #expect(media.map(\.url) == ["http://media.test/gifs/solo.gif"])
        #expect(media.first?.pageKind?.kind == .article)
    }

    /// Bytes that end before a GIF's first frame say nothing either way: it is not dropped as a
    /// still, it stays undecided.
    @Test func aGIFWhoseFirstFrameIsPastTheBytesReadStaysUndecided() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let (media, dropped) = try await Self.resolve("/late-frame", on: server, explain: true)
        #expect(media.isEmpty)
        let last = dropped.last { $0.url == "http://media.test/gifs/late.gif" }
        #expect(last?.explanation?.rule == "no-evidence-beyond-extension")
        #expect(last?.probe?.frames == nil && last?.probe?.animated == nil)
    }

    @Test func anItemPageThatNamesItsItemReadsNoOtherImagesBytes() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let (media, _) = try await Self.resolve("/post", on: server)
        #expect(media.map(\.url) == ["http://media.test/clip.mp4"])
        #expect(media.first?.pageKind == PageKind(.item, reason: "og:type video.other"))
        #expect(!server.requests.map(\.path).contains { $0.hasPrefix("/gifs/") }, "\(server.requests.map(\.path))")
    }

    /// A file that never answers costs the page its budget, no more: when the budget's time has
    /// passed (on a test clock, advanced once the file was asked for), the page ends without it.
    @Test func aFileThatNeverAnswersCostsThePageItsBudgetOnly() async throws {
        let server = try LoopbackServer { request in
            switch request.path {
            case "/page":
                return .html(
                    "<html><head><meta property=\"og:type\" content=\"article\"></head><body><article>"
                        + "<p><img src=\"http://media.test/slow.gif\"></p></article></body></html>")
            case "/slow.gif": return .drip(headers: [("Content-Type", "image/gif")], chunks: [Data("GIF8".utf8)], interval: .seconds(60))
            default: return .status(404)
            }
        }
        defer { server.shutdown() }
        let clock = TestClock()
        var configuration = TrawlConfiguration(loader: LoaderConfiguration(timeout: .seconds(90), connectTo: ["::\(server.host):\(server.port)"]))
        configuration.clock = clock
        let resolve = Task {
            var media: [Media] = []
            for try await set in SearchProvider(configuration).results(for: Request("http://page.test/page")) { media += set.media }
            return media
        }
        try await server.waitForRequests { $0.contains { $0.path == "/slow.gif" } }
        let budget = try await clock.nextSleep()
        #expect(budget == TrawlConfiguration.BytesEvidenceLimits().budget)
        clock.advance(by: budget)
        #expect(try await resolve.value.isEmpty)
    }
}
