import Foundation
import Synchronization
import Testing
import Trawl
import TrawlCore
import TrawlTesting

@testable import TrawlFetch

/// A body the transport streams is scanned as it arrives, and what comes out equals the scan of
/// the whole body.
@Suite("Streamed bodies", .timeLimit(.minutes(2)))
struct StreamedBodyTests {
    /// A page of a few MB that has every kind of thing the scanner reads, spread over the
    /// document so that chunk boundaries fall inside tags, scripts and UTF-8 sequences.
    static let page: Data = {
        var text = #"<!doctype html><html><head><meta charset="utf-8"><title>big – página</title>"#
        text += #"<meta property="og:video" content="https://media.example/clip.mp4"><meta property="og:video:width" content="480">"#
        text += #"<link rel="alternate" type="application/json+oembed" href="https://oembed.example/?u=1">"#
        text += #"<script type="application/ld+json">{"@type":"VideoObject","contentUrl":"https://media.example/ld.mp4","width":640}</script>"#
        text += "</head><body>"
        for index in 0..<6000 {
            text +=
                #"<div class="post"><p>ünïcödé text \#(index) — "quoted" &amp; more</p><img src="https://cdn.example/\#(index).gif" width="320" height="240"></div>"#
            if index % 1500 == 0 {
                text += #"<script>window.__STATE__ = {"items":[{"gif":"https://state.example/\#(index).gif","width":300}]};</script>"#
            }
        }
        text += #"<video poster="https://cdn.example/poster.jpg"><source src="https://cdn.example/last.mp4" type="video/mp4"></video></body></html>"#
        return Data(text.utf8)
    }()

    func writePage() throws -> URL {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-streamed-\(UUID()).html")
        try Self.page.write(to: path)
        return path
    }

    /// A page with no structured media: only URLs in its text, the fallback's to find, some of
    /// them other formats of one another.
    static let textPage: Data = {
        var text = "<html><head><title>plain</title></head><body>"
        for index in 0..<4000 {
            text +=
                "<p>post \(index): https://media.example/\(index % 700)/clip.gif or https://media.example/\(index % 700)/clip.mp4, see //cdn.example/x\(index).webm</p>"
        }
        return Data((text + "</body></html>").utf8)
    }()

    /// The production environment, reading `file:` in small pieces (the size below the page's).
    func environment(bodyLimit: Int = .max) -> (Environment, PieceCount) {
        var files = FileSchemeHandler()
        files.chunkSize = 7919
        files.wholeReadLimit = 0
        var configuration = TrawlConfiguration()
        configuration.schemeHandlers = [files]
        var environment = Environment(configuration)
        environment.documentBodyLimit = bodyLimit
        let pieces = PieceCount()
        environment.scanner = environment.scanner.map { PieceCountingScanner(base: $0, pieces: pieces) }
        return (environment, pieces)
    }

    @Test func aLargePageStreamedThroughFileEqualsTheWholeScan() async throws {
        let path = try writePage()
        defer { try? FileManager.default.removeItem(at: path) }
        let (streaming, pieces) = environment()
        var whole = streaming
        whole.transport = WholePayloads(base: streaming.transport)
        let request = FetchRequest(url: path)

        var streamed: [Payload] = []
        for try await payload in streaming.payloads(for: request, from: nil) { streamed.append(payload) }
        // The scanner read the page piece by piece, not once at the end.
        #expect(pieces.value >= Self.page.count / 7919)
        pieces.reset()
        var buffered: [Payload] = []
        for try await payload in whole.payloads(for: request, from: nil) { buffered.append(payload) }
        #expect(pieces.value == 0)

        #expect(streamed.count == buffered.count)
        #expect(streamed.count > 4)
        #expect(streamed.first?.body == Self.page)
        #expect(streamed.first?.document?.mediaElements.count ?? 0 > 6000)
        for (one, other) in zip(streamed, buffered) {
            #expect(one.info == other.info)
            #expect(one.document == other.document)
            #expect(one.body == other.body)
        }
    }

    func resolve(_ environment: Environment, _ url: URL) async throws -> [ResultSet] {
        var sets: [ResultSet] = []
        for try await set in SearchProvider(environment: environment).results(for: Request(url.absoluteString)) { sets.append(set) }
        return sets
    }

    @Test(arguments: [Int.max, 1 << 20, 64 << 10])
    func aLargePageStreamedThroughFileResolvesAsTheWholeDoes(bodyLimit: Int) async throws {
        let path = try writePage()
        defer { try? FileManager.default.removeItem(at: path) }
        let (streaming, _) = environment(bodyLimit: bodyLimit)
        var whole = streaming
        whole.transport = WholePayloads(base: streaming.transport)
        let streamed = try await resolve(streaming, path)
        #expect(!streamed.flatMap(\.media).isEmpty)
        #expect(streamed.map(\.media) == (try await resolve(whole, path)).map(\.media))
    }

    /// A document past the kept limit is handed on at that point too, when asked: its kept bytes
    /// and what the scan read of them, then the whole document as without the start.
    @Test func aLargeDocumentsStartComesBeforeTheWholeWhenAsked() async throws {
        let path = try writePage()
        defer { try? FileManager.default.removeItem(at: path) }
        let (environment, _) = environment(bodyLimit: 256 << 10)
        let request = FetchRequest(url: path)
        var withStarts: [Payload] = []
        for try await payload in environment.payloads(for: request, from: nil, documentStarts: true) { withStarts.append(payload) }
        var without: [Payload] = []
        for try await payload in environment.payloads(for: request, from: nil) { without.append(payload) }

        let start = try #require(withStarts.first)
        #expect(start.isDocumentStart)
        #expect(start.body == Self.page.prefix(256 << 10))
        #expect(start.document?.firstMeta("og:video") == "https://media.example/clip.mp4")
        // Only what was read by then: the page's images run on to its end.
        #expect((start.document?.mediaElements.count ?? 0) < 6000 / 2)
        #expect(withStarts.filter(\.isDocumentStart).count == 1)
        #expect(without.allSatisfy { !$0.isDocumentStart })
        #expect(withStarts.dropFirst().map(\.body) == without.map(\.body))
        #expect(withStarts.dropFirst().map(\.document) == without.map(\.document))
    }

    /// An undeclared ASCII page has no charset until its first MiB is read: a start not ready
    /// at the first byte past a smaller limit comes once the scan can say what it read.
    @Test func aStartWaitsForTheCharsetOfAnUndeclaredPage() async throws {
        var text = #"<html><head><title>plain</title><meta property="og:image" content="https://media.example/named.gif"></head><body>"#
        while text.utf8.count < 3 << 20 { text += "<p>post: nothing to see here, only words and more words.</p>" }
        let page = Data((text + "</body></html>").utf8)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-undeclared-\(UUID()).html")
        try page.write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let (environment, _) = environment(bodyLimit: 64 << 10)
        var payloads: [Payload] = []
        for try await payload in environment.payloads(for: FetchRequest(url: path), from: nil, documentStarts: true) { payloads.append(payload) }
        let starts = payloads.filter(\.isDocumentStart)
        #expect(starts.count == 1)
        #expect(starts.first?.body == page.prefix(64 << 10))
        #expect(starts.first?.document?.firstMeta("og:image") == "https://media.example/named.gif")
        #expect(payloads.last.map { !$0.isDocumentStart && $0.bodyLength == page.count } == true)
    }

    /// A page small enough to keep whole has no start of its own.
    @Test func aDocumentKeptWholeHasNoStart() async throws {
        let path = try writePage()
        defer { try? FileManager.default.removeItem(at: path) }
        let (environment, _) = environment()
        var payloads: [Payload] = []
        for try await payload in environment.payloads(for: FetchRequest(url: path), from: nil, documentStarts: true) { payloads.append(payload) }
        #expect(payloads.first?.body == Self.page)
        #expect(payloads.allSatisfy { !$0.isDocumentStart })
    }

    /// The document keeps its first bytes only; the fallback finds in the URLs kept of the rest
    /// what it finds in the whole text.
    @Test func aPageKeptInPartFindsWhatTheFallbackFindsInTheWhole() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-text-\(UUID()).html")
        try Self.textPage.write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let (streaming, _) = environment(bodyLimit: 16 << 10)
        var whole = streaming
        whole.transport = WholePayloads(base: streaming.transport)

        var document: Payload?
        for try await payload in streaming.payloads(for: FetchRequest(url: path), from: nil) where payload.document != nil { document = payload }
        #expect(document?.body == Self.textPage.prefix(16 << 10))
        #expect(document?.bodyLength == Self.textPage.count)
        #expect(document?.overflow?.candidates.count == 1400)

        let streamed = try await resolve(streaming, path)
        let media = streamed.flatMap(\.media)
        #expect(media.count > 100)
        #expect(media.contains { $0.url.contains("/249/clip") })
        #expect(streamed.map(\.media) == (try await resolve(whole, path)).map(\.media))
    }
}

@Suite("Streamed bodies over HTTP", .timeLimit(.minutes(2)))
struct StreamedHTTPBodyTests {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer { request in
            switch request.path {
            case "/endless": .endless(headers: [("Content-Type", "text/html")])
            case "/endless-page": .endless(headers: [("Content-Type", "text/html")], start: Self.namedHead, filler: Self.paragraphs)
            case "/endless-shown":
                .endless(
                    headers: [("Content-Type", "text/html")], start: Data("<!doctype html><html><head><title>posts</title></head><body>".utf8),
                    filler: Self.paragraphs)
            case "/bomb": .ok(headers: [("Content-Type", "text/html"), ("Content-Encoding", "gzip")], body: Gzip.compressedZeros(count: 64 << 20))
            case "/drip": .drip(headers: [("Content-Type", "text/html")], chunks: Self.dripped, interval: .milliseconds(20))
            case "/slow":
                .drip(headers: [("Content-Type", "text/html")], chunks: Array(repeating: Data("<p>x</p>".utf8), count: 50), interval: .milliseconds(300))
            default: .status(404)
            }
        }
    }

    /// A head that names its item, as a long thread or archive page does.
    static let namedHead = Data(
        #"""
        <!doctype html><html><head><title>a thread that never ends</title>
        <meta property="og:video" content="https://media.example/named.mp4"><meta property="og:video:type" content="video/mp4">
        <meta property="og:image" content="https://media.example/named.jpg"></head><body>
        """#.utf8)

    /// The body of the page that never ends: posts with their own images.
    static let paragraphs = Data(
        String(repeating: #"<div class="post"><p>lorem ipsum</p><img src="https://cdn.example/post.gif" width="300"></div>"#, count: 600).utf8)

    /// What a page's head names goes out once the page outgrows the part kept of it, while its
    /// body is still arriving: this page's body never ends (the cap would end it in an error).
    @Test func whatAPagesHeadNamesArrivesBeforeItsBodyEnds() async throws {
        let environment = environment(maxBodySize: 16 << 20)
        let request = Request(server.url("/endless-page").absoluteString)
        var first: ResultSet?
        for try await set in SearchProvider(environment: environment).results(for: request) where !set.media.isEmpty {
            first = set
            break
        }
        let media = try #require(first?.media.first)
        #expect(media.url == "https://media.example/named.mp4")
        #expect(media.still == "https://media.example/named.jpg")
        #expect(first?.media.count == 1)
    }

    /// Without a name in its head, what the body shows waits for the body's end (something
    /// further on may still name the item): the page that never ends is cut by the cap, with
    /// nothing said before.
    @Test func whatAPagesBodyShowsWaitsForTheEnd() async throws {
        let environment = environment(maxBodySize: 4 << 20)
        var media: [Media] = []
        await #expect {
            for try await set in SearchProvider(environment: environment).results(for: Request(server.url("/endless-shown").absoluteString)) {
                media += set.media
            }
        } throws: { ($0 as? FetchError)?.code == .bodyTooLarge }
        #expect(media.isEmpty)
    }

    /// A small page in eight pieces.
    static let dripped: [Data] = {
        let page = Data(String(repeating: #"<p><img src="https://m.example/a.gif" width="300"></p>"#, count: 80).utf8)
        return stride(from: 0, to: page.count, by: page.count / 8 + 1).map { page[$0..<min(page.count, $0 + page.count / 8 + 1)] }
    }()

    /// The bytes of a body that arrives slowly reach the scanner as they come, not gathered
    /// until the transfer ends.
    @Test func aSlowBodyReachesTheScannerInPieces() async throws {
        var environment = environment()
        let pieces = PieceCount()
        environment.scanner = environment.scanner.map { PieceCountingScanner(base: $0, pieces: pieces) }
        let payloads = try await payloads("/drip", environment)
        #expect(payloads.first?.document?.mediaElements.count == 80)
        #expect(pieces.value > 1)
    }

    func environment(maxBodySize: Int = 32 << 20) -> Environment {
        var configuration = TrawlConfiguration()
        configuration.loader.maxBodySize = maxBodySize
        return Environment(configuration)
    }

    func payloads(_ path: String, _ environment: Environment) async throws -> [Payload] {
        var payloads: [Payload] = []
        for try await payload in environment.payloads(for: FetchRequest(url: server.url(path)), from: nil) { payloads.append(payload) }
        return payloads
    }

    @Test func theBodyCapStopsAStreamedBodyAndNamesTheURL() async throws {
        await #expect { try await payloads("/endless", environment(maxBodySize: 1 << 20)) } throws: { error in
            guard let error = error as? FetchError else { return false }
            return error.code == .bodyTooLarge && error.description.contains("/endless")
        }
    }

    @Test func aGzipBombStopsAtTheCapWhileStreaming() async throws {
        await #expect { try await payloads("/bomb", environment(maxBodySize: 8 << 20)) } throws: { ($0 as? FetchError)?.code == .bodyTooLarge }
    }

    @Test func cancellingTheReaderStopsTheTransfer() async throws {
        let environment = environment()
        let task = Task { try await payloads("/slow", environment) }
        try await server.waitForRequests { $0.contains { $0.path == "/slow" } }
        task.cancel()
        // Uncancelled, the 15 s drip ends in a document; cancelled, the stream ends with none.
        let result = await task.result
        switch result {
        case .success(let payloads): #expect(payloads.isEmpty)
        case .failure(let error): #expect((error as? FetchError)?.code == .cancelled)
        }
    }
}

/// A transport that serves only whole payloads: what the scan of a buffered body sees.
struct WholePayloads: PayloadTransport {
    let base: any PayloadTransport
    func payloads(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        base.payloads(for: request, context: context)
    }
}

/// How many pieces document streams were fed.
final class PieceCount: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
    func add() { count.add(1, ordering: .relaxed) }
    func reset() { count.store(0, ordering: .relaxed) }
}

/// Counts the pieces a scanner's document streams are fed.
struct PieceCountingScanner: DocumentScanner {
    let base: any DocumentScanner
    let pieces: PieceCount

    func scan(_ payload: Payload) throws -> ScannedDocument { try base.scan(payload) }
    func documentStream(for info: PayloadInfo) -> (any DocumentStream)? {
        base.documentStream(for: info).map { Counting(base: $0, pieces: pieces) }
    }

    final class Counting: DocumentStream {
        let base: any DocumentStream
        let pieces: PieceCount
        init(base: any DocumentStream, pieces: PieceCount) {
            self.base = base
            self.pieces = pieces
        }
        func feed(_ piece: Data) {
            pieces.add()
            base.feed(piece)
        }
        func finish() throws -> ScannedDocument { try base.finish() }
        func summarySoFar() -> DocumentSummary? { base.summarySoFar() }
    }
}
