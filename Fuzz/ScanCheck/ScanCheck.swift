import Foundation
import FuzzSupport
import TrawlCore
import TrawlHTML

/// Scans `document` in one piece and again fed in pieces whose sizes come from `seed`, and
/// stops the run when the two differ: `HTMLStreamScanner` promises the same result however
/// the bytes are split (it re-blocks them for libxml2).
public func checkChunkedScanEqualsWhole(_ document: Data, declaredCharset: String?, thins: Bool, seed: UInt64) {
    let url = "https://example.com/fuzz/page.html"
    let scanner = HTMLScanner(thinsInput: thins)
    let whole = try? scanner.scan(document, url: url, declaredCharset: declaredCharset)
    var sizes = SplitMix64(seed: seed)
    let stream = HTMLStreamScanner(url: url, declaredCharset: declaredCharset, configuration: scanner)
    var offset = document.startIndex
    while offset < document.endIndex {
        let end = min(offset + sizes.chunkSize(), document.endIndex)
        stream.feed(document[offset..<end])
        offset = end
    }
    let chunked = try? stream.finish()
    // A charset libxml2 has no converter for fails both ways alike.
    guard let whole, let chunked else {
        if (whole == nil) != (chunked == nil) { violated("only one of the one-piece and chunked scans threw") }
        return
    }
    if chunked.summary != whole.summary { violated("chunked summary differs from the one-piece scan (seed \(seed))") }
    if chunked.embedded.map(\.body) != whole.embedded.map(\.body) { violated("chunked embedded payloads differ (seed \(seed))") }
    if chunked.embedded.map(\.info.origin.description) != whole.embedded.map(\.info.origin.description) {
        violated("chunked embedded origins differ (seed \(seed))")
    }
}
