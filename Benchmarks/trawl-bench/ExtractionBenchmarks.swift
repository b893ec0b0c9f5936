// trawl-bench's own measurements: extraction throughput against libxml2's own limit, the replay
// suite, accuracy over the corpus and the dev set, and peak memory on a 30 MB page. The commands
// that run them are in TrawlBench.swift (`trawl-bench --help`).
//
// Reads ../shared/corpus/generic (or $TRAWL_CORPUS/generic). One core: everything runs on the
// calling thread.
import CBenchLibXML2
import Foundation
import Synchronization
import Trawl
import TrawlCore
import TrawlHTML
import TrawlParsers
import TrawlRecordings
import TrawlTesting

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// libxml2's HTML push parser with no SAX callbacks, fed the same 64 KiB blocks the scanner
/// feeds: the most a scanner that hands every byte to libxml2 could do. (Trawl's scanner reads
/// script and style text itself, so its scan alone runs faster than this.)
func emptySAXParse(_ page: Data) {
    var sax = htmlSAXHandler()
    guard let context = htmlCreatePushParserCtxt(&sax, nil, nil, 0, nil, XML_CHAR_ENCODING_UTF8) else { return }
    defer { htmlFreeParserCtxt(context) }
    htmlCtxtUseOptions(
        context,
        Int32(
            HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_NONET.rawValue
                | HTML_PARSE_IGNORE_ENC.rawValue))
    page.withUnsafeBytes { raw in
        let bytes = raw.bindMemory(to: CChar.self)
        var offset = 0
        while offset < bytes.count {
            let size = min(HTMLStreamScanner.blockSize, bytes.count - offset)
            _ = htmlParseChunk(context, bytes.baseAddress! + offset, Int32(size), 0)
            offset += size
        }
    }
    _ = htmlParseChunk(context, nil, 0, 1)
}

/// What Trawl does per page: the scan, then every generic parser over the document and each
/// embedded payload (the fallback only where nothing structured answered, as the web engine does).
func extract(_ page: Data, url: URL, chain: ParserChain) -> Int {
    let info = PayloadInfo(url: url, contentType: "text/html")
    guard let scanned = try? HTMLScanner().scan(Payload(body: page, info: info)) else { return 0 }
    var found = 0
    found += chain.parse(Payload(body: page, info: info, document: scanned.summary), stages: .structured).media.count
    for embedded in scanned.embedded { found += chain.parse(embedded, stages: .structured).media.count }
    if found == 0 { found += chain.parse(Payload(body: page, info: info), stages: .fallback).media.count }
    return found
}

func throughput() throws {
    let urls = try Corpus.genericPages()
    let pages = try urls.map { try Data(contentsOf: $0) }
    let bytes = pages.reduce(0) { $0 + $1.count }
    let chain = GenericParsers.chain()
    let rounds = 7
    let clock = ContinuousClock()
    print("corpus: \(pages.count) pages, \(String(format: "%.1f", Double(bytes) / 1e6)) MB (\(Corpus.root.path)/generic)")
    LibXML2Warmup.run(pages.first ?? Data())
    // Each page is timed both ways back to back, and each page keeps its fastest round: the
    // sums compare like with like even when another process takes the core for a while.
    var limitBest = [Double](repeating: .infinity, count: pages.count)
    var trawlBest = [Double](repeating: .infinity, count: pages.count)
    var scanBest = [Double](repeating: .infinity, count: pages.count)
    var media = 0
    for _ in 0..<rounds {
        media = 0
        for (index, (page, url)) in zip(pages, urls).enumerated() {
            limitBest[index] = min(limitBest[index], seconds(clock.measure { emptySAXParse(page) }))
            var found = 0
            trawlBest[index] = min(trawlBest[index], seconds(clock.measure { found = extract(page, url: url, chain: chain) }))
            media += found
            scanBest[index] = min(scanBest[index], seconds(clock.measure { _ = try? HTMLScanner().scan(page, url: url.absoluteString) }))
        }
    }
    let limitBestTotal = limitBest.reduce(0, +)
    let trawlBestTotal = trawlBest.reduce(0, +)
    let limit = Double(bytes) / limitBestTotal / 1e6
    let trawl = Double(bytes) / trawlBestTotal / 1e6
    print(String(format: "libxml2 SAX push parse, empty callbacks: %.1f MB/s (each page its best of %d)", limit, rounds))
    print(String(format: "trawl scan + generic parsers:           %.1f MB/s (each page its best of %d), %d media", trawl, rounds, media))
    print(String(format: "  of which the scan alone:              %.1f MB/s", Double(bytes) / scanBest.reduce(0, +) / 1e6))
    print(String(format: "ratio: %.2f of the libxml2 limit (target >= 0.90)", trawl / limit))
}

enum LibXML2Warmup {
    static func run(_ page: Data) {
        _ = try? HTMLScanner().scan(page, url: "https://warmup.example/")
    }
}

/// Peak resident memory (VmHWM) in bytes.
func peakRSS() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return (Int(line.split(whereSeparator: \.isWhitespace)[1]) ?? 0) * 1024
    }
    return 0
}

/// The two 30 MB pages: one line of ordinary markup (what a big page is), and one text node
/// with no tag in it for 30 MB (libxml2's push parser holds such a node whole until its end).
enum BigPage: String {
    case markup, text
    /// The markup page with a head that names its item (an animated `og:image`), as a long
    /// thread or archive page does.
    case named

    /// libxml2's push parser keeps its whole input while an element it cannot close yet is
    /// open: so the text page holds its 30 MB in libxml2 as well as in the body, and so would
    /// a markup page wrapped in an unclosed `<p>`. The markup page is plain blocks.
    var head: String {
        switch self {
        case .markup: "<html><head><title>big</title></head><body>"
        case .text: "<html><head><title>big</title></head><body><p>"
        case .named: #"<html><head><title>big</title><meta property="og:image" content="https://m.example/named.gif"></head><body>"#
        }
    }

    var tail: String {
        switch self {
        case .markup, .named: #"<img src="https://m.example/last.gif" width="300"></body></html>"#
        case .text: #"</p><img src="https://m.example/last.gif" width="300"></body></html>"#
        }
    }

    var filler: String {
        switch self {
        case .markup, .named: String(repeating: #"<p class="c">lorem ipsum <a href="/x">dolor</a> sit amet</p>"#, count: 2048)
        case .text: String(repeating: "lorem ipsum dolor sit amet, ", count: 4096)
        }
    }
}

/// Writes the 30 MB page of `kind` to `path` in pieces (so it never sits in this process's
/// memory) and returns its size in bytes.
func writeBigPage(_ kind: BigPage, to path: URL) throws -> Int {
    _ = FileManager.default.createFile(atPath: path.path, contents: nil)
    let file = try FileHandle(forWritingTo: path)
    defer { try? file.close() }
    var size = 0
    func write(_ text: String) throws {
        try file.write(contentsOf: Data(text.utf8))
        size += text.utf8.count
    }
    try write(kind.head)
    let filler = kind.filler
    while size < 30 << 20 { try write(filler) }
    try write(kind.tail)
    return size
}

func memory(_ kind: BigPage) async throws {
    // A 30 MB single-line page with one GIF at the end, read through the real loader (file:).
    // Written in pieces, so the page never sits in this process's memory before the run.
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-bench-30mb.html")
    let size = try writeBigPage(kind, to: path)
    defer { try? FileManager.default.removeItem(at: path) }
    // A running worker: the provider made and one small page resolved (libcurl, OpenSSL and
    // libxml2 loaded) before the high-water mark is read.
    let provider = SearchProvider()
    let small = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-bench-small.html")
    try Data(#"<html><body><img src="https://m.example/a.gif" width="300"></body></html>"#.utf8).write(to: small)
    defer { try? FileManager.default.removeItem(at: small) }
    for try await _ in provider.results(for: Request("!web " + small.absoluteString)) {}
    let before = peakRSS()
    var found: [String] = []
    for try await set in provider.results(for: Request("!web " + path.absoluteString)) { found += set.media.map(\.url) }
    let peak = peakRSS()
    print(
        String(
            format: "30 MB page (\(kind.rawValue)): %.1f MB; peak RSS before %.1f MB, after resolving %.1f MB", Double(size) / 1e6, Double(before) / 1e6,
            Double(peak) / 1e6))
    print(
        String(
            format: "peak RSS / page size: %.2f (goal <= 1.25); growth while resolving / page size: %.2f; found %@",
            Double(peak) / Double(size), Double(peak - before) / Double(size), found.joined(separator: ", ")))
}

/// Only the extraction, round after round, for a profiler (`perf record … trawl-bench profile`).
func profileExtraction(rounds: Int) throws {
    let urls = try Corpus.genericPages()
    let pages = try urls.map { try Data(contentsOf: $0) }
    let chain = GenericParsers.chain()
    var media = 0
    for _ in 0..<rounds {
        for (page, url) in zip(pages, urls) { media += extract(page, url: url, chain: chain) }
    }
    print("\(rounds) rounds over \(pages.count) pages, \(media) media")
}

/// Counts the payloads a transport serves.
final class CountingTransport: PayloadTransport {
    let base: any PayloadTransport
    let count = Atomic<Int>(0)
    init(base: any PayloadTransport) { self.base = base }

    func payloads(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        let base = self.base
        return AsyncThrowingStream(running: { continuation in
            for try await payload in base.payloads(for: request, context: context) {
                self.count.add(1, ordering: .relaxed)
                continuation.yield(payload)
            }
        })
    }
}

/// The whole replay suite end to end: the repository's cases and every corpus response
/// imported into a HAR, each resolved through provider → engine → payloads → parsers.
func replay() async throws {
    let cases = try RecordedCase.all(in: Corpus.repositoryRoot.appendingPathComponent("Recordings")).filter(\.hasRecording)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-bench-replay-\(getpid())")
    defer { try? FileManager.default.removeItem(at: folder) }
    var jobs: [(request: Request, archive: URL)] = cases.map {
        (Request($0.recordingCase.input, pagination: $0.recordingCase.page.flatMap(Pagination.init(token:)) ?? .start), $0.archive)
    }
    for (index, entry) in ((try? Corpus.siteEntries()) ?? []).enumerated() {
        let archive = folder.appendingPathComponent("\(index).har")
        try HARImporter.har(file: entry.path, url: entry.url).write(to: archive)
        jobs.append((Request(entry.url), archive))
    }
    let clock = ContinuousClock()
    var best = Duration.seconds(1_000_000)
    var payloads = 0
    var media = 0
    for _ in 0..<5 {
        payloads = 0
        media = 0
        let elapsed = try await clock.measure {
            for job in jobs {
                var environment = Environment(.init(replay: try TrawlConfiguration.Replay(path: job.archive)))
                let counter = CountingTransport(base: environment.transport)
                environment.transport = counter
                // Keys are scrubbed from recordings and ignored when matching.
                let search = TrawlConfiguration.Search(giphyKey: Scrubber.placeholder, tenorKey: Scrubber.placeholder)
                for try await set in SearchProvider(environment: environment, search: search).results(for: job.request) { media += set.media.count }
                payloads += counter.count.load(ordering: .relaxed)
            }
        }
        best = min(best, elapsed)
    }
    let wall = seconds(best)
    print(
        String(
            format: "replay suite: %d cases (%d repository, %d corpus), %d fetched payloads, %d media", jobs.count, cases.count, jobs.count - cases.count,
            payloads, media))
    print(String(format: "whole suite %.3f s (best of 5, HAR reading included; target < 5 s), %.0f payloads/s", wall, Double(payloads) / wall))
}

/// Precision and recall of media URLs over the corpus's real responses, each replayed from a
/// HAR at its original URL through the default provider. A result is right when its URL or one
/// of its renditions is expected; an expected URL is found when some result carries it.
func accuracy(verbose: Bool) async throws {
    if Corpus.isAvailable { try await corpusAccuracy() } else { print("corpus: not found at \(Corpus.root.path), its table is left out") }
    try await devSetAccuracy(verbose: verbose)
}

func corpusAccuracy() async throws {
    let entries = try Corpus.siteEntries()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-bench-accuracy-\(getpid())")
    defer { try? FileManager.default.removeItem(at: folder) }
    struct Tally { var expected = 0, found = 0, results = 0, right = 0 }
    var bySite: [String: Tally] = [:]
    for (index, entry) in entries.enumerated() {
        let archive = folder.appendingPathComponent("\(index).har")
        try HARImporter.har(file: entry.path, url: entry.url).write(to: archive)
        var sets: [ResultSet] = []
        for try await set in SearchProvider(.init(replay: try TrawlConfiguration.Replay(path: archive))).results(for: Request(entry.url)) {
            sets.append(set)
        }
        let media = MediaCollection(sets.flatMap(\.media)).media
        let expected = Set(entry.expected_media.map(CanonicalURL.key))
        let carried = Set(media.flatMap(\.allURLs).map(CanonicalURL.key))
        var tally = bySite[entry.site, default: Tally()]
        tally.expected += expected.count
        tally.found += expected.intersection(carried).count
        tally.results += media.count
        tally.right += media.filter { !Set($0.allURLs.map(CanonicalURL.key)).isDisjoint(with: expected) }.count
        bySite[entry.site] = tally
    }
    func ratio(_ a: Int, _ b: Int) -> String { b == 0 ? "   -" : String(format: "%.2f", Double(a) / Double(b)) }
    print("site                  recall        precision")
    var all = Tally()
    for (site, t) in bySite.sorted(by: { $0.key < $1.key }) {
        print(
            site.padding(toLength: 20, withPad: " ", startingAt: 0)
                + String(format: "  %@ (%2d/%2d)  %@ (%2d/%2d)", ratio(t.found, t.expected), t.found, t.expected, ratio(t.right, t.results), t.right, t.results)
        )
        all.expected += t.expected; all.found += t.found; all.results += t.results; all.right += t.right
    }
    print(
        "overall".padding(toLength: 20, withPad: " ", startingAt: 0)
            + String(
                format: "  %@ (%2d/%2d)  %@ (%2d/%2d)   targets: recall >= 0.95, precision >= 0.90",
                ratio(all.found, all.expected), all.found, all.expected, ratio(all.right, all.results), all.right, all.results))
}

/// Replays one dev-set response at `url` through the default provider; the media's URLs, or
/// `nil` when the resolve failed (scored as no results).
func resolveDevSet(_ entry: DevSet.Entry, at url: String) async -> [[String]]? {
    do {
        let replay =
            entry.kind == "har"
            ? try TrawlConfiguration.Replay(path: entry.path)
            // Served as saved: a scrubbed copy would no longer carry the labelled URLs.
            : TrawlConfiguration.Replay(entries: [HARImporter.entry(body: try Data(contentsOf: entry.path), url: url, fileName: entry.path.lastPathComponent)])
        var sets: [ResultSet] = []
        for try await set in SearchProvider(.init(replay: replay)).results(for: Request(url)) { sets.append(set) }
        return MediaCollection(sets.flatMap(\.media)).media.map(\.allURLs)
    } catch {
        return nil
    }
}

/// Recall and precision over the dev set, twice: replayed at each response's original URL
/// (site parsers and generic ones), and the same bytes at the same path on a host no site
/// parser knows (generic parsers only). Overall, by trap class and by site. `verbose`: each
/// response's figures, and the results that carry no expected URL.
func devSetAccuracy(verbose: Bool) async throws {
    let entries = try DevSet.entries()
    var withSites = DevSet.Report()
    var genericOnly = DevSet.Report()
    for entry in entries {
        let siteResults = await resolveDevSet(entry, at: entry.url)
        let genericResults = await resolveDevSet(entry, at: entry.unknownHostURL)
        let site = DevSet.score(expected: entry.expected_media, results: siteResults)
        let generic = DevSet.score(expected: entry.expected_media, results: genericResults)
        withSites.add(site, for: entry)
        genericOnly.add(generic, for: entry)
        if verbose {
            print(
                "\(entry.file): site parsers found \(site.found)/\(site.expected), right \(site.right)/\(site.results)\(site.failures > 0 ? " (failed)" : ""); generic found \(generic.found)/\(generic.expected), right \(generic.right)/\(generic.results)\(generic.failures > 0 ? " (failed)" : "")"
            )
            let expected = Set(entry.expected_media.map(CanonicalURL.key))
            for urls in siteResults ?? [] where Set(urls.map(CanonicalURL.key)).isDisjoint(with: expected) {
                print("    not the page's own (site parsers): \(urls[0])")
            }
            for urls in genericResults ?? [] where Set(urls.map(CanonicalURL.key)).isDisjoint(with: expected) {
                print("    not the page's own (generic only): \(urls[0])")
            }
            let carried = Set((siteResults ?? []).flatMap { $0 }.map(CanonicalURL.key))
            for url in entry.expected_media where !carried.contains(CanonicalURL.key(url)) { print("    missed (site parsers): \(url)") }
            let carriedGeneric = Set((genericResults ?? []).flatMap { $0 }.map(CanonicalURL.key))
            for url in entry.expected_media where !carriedGeneric.contains(CanonicalURL.key(url)) { print("    missed (generic only): \(url)") }
        }
    }
    func cell(_ a: Int, _ b: Int) -> String {
        (b == 0 ? "   -" : String(format: "%.3f", Double(a) / Double(b))) + " (\(a)/\(b))".padding(toLength: 11, withPad: " ", startingAt: 0)
    }
    func row(_ name: String, _ s: DevSet.Tally, _ g: DevSet.Tally) -> String {
        name.padding(toLength: 22, withPad: " ", startingAt: 0) + String(format: "%4d  ", s.pages)
            + cell(s.found, s.expected) + "  " + cell(s.right, s.results) + "   " + cell(g.found, g.expected) + "  " + cell(g.right, g.results)
    }
    let sites = Set(entries.map(\.site)).count
    let withMedia = entries.filter { !$0.expected_media.isEmpty }.count
    print("dev set: \(entries.count) responses from \(sites) sites, \(withMedia) with media of their own (\(DevSet.folder.path))")
    print("                       pages  site parsers (original URL)                generic only (unknown host)")
    print("                              recall            precision                recall            precision")
    print(row("overall", withSites.overall, genericOnly.overall))
    // The split by source repository (DevSet.Half): rules are written against the tune half;
    // the check half says whether they carry.
    for half in DevSet.Half.allCases {
        let repositories = Set(entries.filter { $0.half == half }.map(\.source_repo)).count
        print(row("\(half) half (\(repositories) repos)", withSites.byHalf[half] ?? DevSet.Tally(), genericOnly.byHalf[half] ?? DevSet.Tally()))
        for trap in (withSites.byHalfAndTrap[half] ?? [:]).keys.sorted() {
            print(row("  " + trap, withSites.byHalfAndTrap[half]![trap]!, genericOnly.byHalfAndTrap[half]?[trap] ?? DevSet.Tally()))
        }
    }
    print("by page kind:")
    for kind in withSites.byPageKind.keys.sorted() { print(row("  " + kind, withSites.byPageKind[kind]!, genericOnly.byPageKind[kind]!)) }
    print("by trap class:")
    for trap in withSites.byTrap.keys.sorted() { print(row("  " + trap, withSites.byTrap[trap]!, genericOnly.byTrap[trap]!)) }
    print("by site:")
    for site in withSites.bySite.keys.sorted() { print(row("  " + site, withSites.bySite[site]!, genericOnly.bySite[site]!)) }
    if let s = withSites.byTrap["no-media"], let g = genericOnly.byTrap["no-media"] {
        print(
            "responses with no media of their own that returned some: \(s.pagesWithResults)/\(s.pages) with site parsers, \(g.pagesWithResults)/\(g.pages) generic only"
        )
    }
    print("failed resolves (scored as no results): \(withSites.overall.failures) with site parsers, \(genericOnly.overall.failures) generic only")
}

/// Scans each file with the thinned feed and without, and prints the files whose results differ
/// (for narrowing down a case the tests found); whether any did.
func compareThinnedScan(_ paths: [String]) throws -> Bool {
    var differ = false
    for path in paths {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let thin = try HTMLScanner(thinsInput: true).scan(data, url: "https://example.com/", declaredCharset: "utf-8")
        let full = try HTMLScanner(thinsInput: false).scan(data, url: "https://example.com/", declaredCharset: "utf-8")
        if thin.summary != full.summary || thin.embedded.map(\.body) != full.embedded.map(\.body) {
            differ = true
            print(
                "\(path): differ\n  thinned: \(thin.summary) \(thin.embedded.map { String(decoding: $0.body, as: UTF8.self) })\n  full:    \(full.summary) \(full.embedded.map { String(decoding: $0.body, as: UTF8.self) })"
            )
        }
    }
    return differ
}
