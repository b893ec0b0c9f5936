import Foundation
import Testing
import TrawlCore
import TrawlTesting

@testable import TrawlParsers

/// The text fallback's scan of a text that arrives in pieces finds what a scan of the whole
/// finds, in the same order, however the pieces fall.
@Suite("Media URL scan in pieces")
struct MediaURLScanTests {
    /// The candidates of `text` fed in pieces of the sizes `sizes` yields, in turn.
    static func pieces(_ text: [UInt8], sizes: inout some IteratorProtocol<Int>) -> [MediaURLCandidate] {
        var scan = MediaURLScan()
        var offset = 0
        while offset < text.count {
            let size = max(1, sizes.next() ?? 1)
            let end = min(text.count, offset + size)
            text[offset..<end].withUnsafeBytes { scan.feed($0) }
            offset = end
        }
        scan.finish()
        return scan.candidates
    }

    static func whole(_ text: [UInt8]) -> [MediaURLCandidate] {
        var scan = MediaURLScan()
        text.withUnsafeBytes { scan.feed($0) }
        scan.finish()
        return scan.candidates
    }

    /// Every URL form the scan reads, near one another, so that piece boundaries fall in every
    /// place: in schemes, escapes, `&quot;`, and between a slash and what it needs after it.
    static let forms = Array(
        #"""
        <a href="https://m.example/a.gif">x</a> "//cdn.example/b.mp4" ('//c.example/c.webm')
        {"u":"https:\/\/j.example\/d.gif?x=1\u0026y=2","v":"https:\/\/v.redd.it\/abc"}
        &quot;https://q.example/e.gifv&quot; HTTPS://UP.EXAMPLE/F.GIF. http://x.example/page
        =//eq.example/g.webp https://i.example/h.gif\u0022tail https://video.twimg.com/v/1
        """#.utf8)

    @Test func everyPieceSizeOverEveryFormFindsTheWholeScansCandidates() {
        let whole = Self.whole(Self.forms)
        #expect(whole.count >= 9)
        // The scan over the whole text is the fallback's own.
        let urls = Self.forms.withUnsafeBufferPointer { RegexFallbackParser.scan($0, limit: 100) }
        #expect(RegexFallbackParser.urls(in: whole, limit: 100) == urls)
        for size in 1...24 {
            var sizes = repeatElement(size, count: .max).makeIterator()
            #expect(Self.pieces(Self.forms, sizes: &sizes) == whole, "pieces of \(size) bytes")
        }
    }

    @Test func aURLTooLongToHoldIsSkippedToItsEndAsTheWholeScanSkipsIt() {
        // No byte ends this URL for 200 KiB: the whole scan skips every slash inside it.
        var text = Array("x https://long.example/".utf8)
        text += Array(repeating: UInt8(ascii: "a"), count: 100 << 10)
        text += Array("/https://inner.example/no.gif".utf8)
        text += Array(repeating: UInt8(ascii: "b"), count: 100 << 10)
        text += Array(" https://after.example/yes.gif and \\u0022https://e.example/z.mp4".utf8)
        let whole = Self.whole(text)
        #expect(whole.map(\.raw) == ["https://after.example/yes.gif", "https://e.example/z.mp4"])
        for size in [1 << 10, 7919, 64 << 10, 100_000] {
            var sizes = repeatElement(size, count: .max).makeIterator()
            #expect(Self.pieces(text, sizes: &sizes) == whole, "pieces of \(size) bytes")
        }
    }

    @Test(.tags(.corpus)) func corpusPagesInRandomPiecesFindTheWholeScansCandidates() throws {
        var random = SplitMix64(seed: 7)
        for url in try Corpus.genericPages() + Corpus.siteEntries().map(\.path) {
            let text = Array(try Data(contentsOf: url))
            let whole = Self.whole(text)
            let urls = text.withUnsafeBufferPointer { RegexFallbackParser.scan($0, limit: 500) }
            #expect(RegexFallbackParser.urls(in: whole, limit: 500) == urls, "\(url.lastPathComponent)")
            var sizes = AnyIterator { Int.random(in: 1...20_000, using: &random) }
            #expect(Self.pieces(text, sizes: &sizes) == whole, "\(url.lastPathComponent)")
        }
    }
}
