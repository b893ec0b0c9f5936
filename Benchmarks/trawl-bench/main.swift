// trawl-bench: extraction throughput against libxml2's own limit, and peak memory on a
// 30 MB page. Run from the repository's top folder:
//
//     swift run -c release trawl-bench            # both
//     swift run -c release trawl-bench throughput
//     swift run -c release trawl-bench memory
//
// Reads ../shared/corpus/generic (or $TRAWL_CORPUS/generic). One core: everything runs on the
// calling thread.
import CLibXML2
import Foundation
import Trawl
import TrawlCore
import TrawlHTML
import TrawlParsers
import TrawlTesting

let mode = CommandLine.arguments.dropFirst().first ?? "all"

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// libxml2's HTML push parser with no SAX callbacks, fed the same 64 KiB blocks the scanner
/// feeds: the most any SAX-based scanner on libxml2 could do.
func emptySAXParse(_ page: Data) {
    var sax = htmlSAXHandler()
    guard let context = htmlCreatePushParserCtxt(&sax, nil, nil, 0, nil, XML_CHAR_ENCODING_UTF8) else { return }
    defer { htmlFreeParserCtxt(context) }
    htmlCtxtUseOptions(context, Int32(HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_NONET.rawValue | HTML_PARSE_IGNORE_ENC.rawValue))
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
    let rounds = 5
    let clock = ContinuousClock()
    print("corpus: \(pages.count) pages, \(String(format: "%.1f", Double(bytes) / 1e6)) MB (\(Corpus.root.path)/generic)")
    LibXML2Warmup.run(pages.first ?? Data())
    var limitBest = Double.infinity
    var trawlBest = Double.infinity
    var media = 0
    for _ in 0..<rounds {
        let a = clock.measure { for page in pages { emptySAXParse(page) } }
        limitBest = min(limitBest, seconds(a))
        let b = clock.measure { media = zip(pages, urls).reduce(0) { $0 + extract($1.0, url: $1.1, chain: chain) } }
        trawlBest = min(trawlBest, seconds(b))
    }
    let limit = Double(bytes) / limitBest / 1e6
    let trawl = Double(bytes) / trawlBest / 1e6
    print(String(format: "libxml2 SAX push parse, empty callbacks: %.1f MB/s (best of %d)", limit, rounds))
    print(String(format: "trawl scan + generic parsers:           %.1f MB/s (best of %d), %d media", trawl, rounds, media))
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

func memory() async throws {
    // A 30 MB single-line page with one GIF at the end, read through the real loader (file:).
    var html = Data("<html><head><title>big</title></head><body><p>".utf8)
    let filler = Data(String(repeating: "lorem ipsum dolor sit amet, ", count: 4096).utf8)
    while html.count < 30 << 20 { html.append(filler) }
    html.append(Data(#"</p><img src="https://m.example/last.gif" width="300"></body></html>"#.utf8))
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-bench-30mb.html")
    try html.write(to: path)
    let size = html.count
    html = Data()
    defer { try? FileManager.default.removeItem(at: path) }
    let before = peakRSS()
    let provider = Trawl.makeProvider()
    var found: [String] = []
    for try await set in await provider.results(for: Request("!web " + path.absoluteString)) { found += set.media.map(\.url) }
    let peak = peakRSS()
    print(String(format: "30 MB page: %.1f MB; peak RSS before %.1f MB, after resolving %.1f MB", Double(size) / 1e6, Double(before) / 1e6, Double(peak) / 1e6))
    print(String(format: "peak RSS / page size: %.2f (target <= 3.00); found %@", Double(peak) / Double(size), found.joined(separator: ", ")))
}

if mode == "all" || mode == "throughput" { try throughput() }
if mode == "all" || mode == "memory" { try await memory() }
