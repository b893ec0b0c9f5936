import Foundation
import Testing
import TrawlCore

@testable import TrawlHTML

/// libxml2 gives up on some documents part way (`htmlParseChunk` returns -1 when its decoder
/// cannot convert a byte: a page of binary junk, read as windows-1252, has bytes that charset
/// leaves undefined). What it read before stands.
@Suite("HTML scan stopped by libxml2")
struct ScanStopTests {
    /// An `og:video`, then 1 MiB of bytes that are not UTF-8 (so the page is read as
    /// windows-1252, whose undefined bytes stop libxml2's decoder), then an `<img>`.
    static let junkPage: (page: Data, junkStart: Int, imgStart: Int) = {
        let head = Data(#"<!doctype html><html><head><meta property="og:video" content="https://media.example.com/clip.mp4"></head><body><p>x</p>"#.utf8)
        var junk = Data(capacity: 1 << 20)
        var state: UInt32 = 2_463_534_242
        for _ in 0..<(1 << 20) {
            // xorshift32: the same bytes every run.
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            junk.append(UInt8(truncatingIfNeeded: state))
        }
        let tail = Data(#"<img src="https://media.example.com/after.gif" width="300" height="200"></body></html>"#.utf8)
        return (head + junk + tail, head.count, head.count + junk.count)
    }()

    @Test func whatWasReadBeforeLibXML2GaveUpIsKept() throws {
        let (page, _, imgStart) = Self.junkPage
        let scanned = try HTMLScanner().scan(page, url: "https://example.com/junk")
        #expect(scanned.summary.charset == "windows-1252")
        #expect(scanned.summary.firstMeta("og:video") == "https://media.example.com/clip.mp4")
        let stop = try #require(scanned.summary.stop, "libxml2 stops on this page; the summary says where")
        #expect(stop.reason.contains("htmlParseChunk"), "\(stop.reason)")
        // The rest starts before anything libxml2 did not report: the img is in it.
        #expect(stop.offset <= imgStart)
        #expect(String(decoding: page.dropFirst(stop.offset), as: UTF8.self).contains("after.gif"))
    }

    @Test(arguments: [1, 4093, 65536, 100_000])
    func aPageFedInPiecesStopsAlike(piece: Int) throws {
        let (page, _, _) = Self.junkPage
        let whole = try HTMLScanner().scan(page, url: "https://example.com/junk")
        let stream = HTMLStreamScanner(url: "https://example.com/junk", declaredCharset: nil)
        var offset = 0
        // One-byte pieces only for the head and the start of the junk: the charset is decided there.
        while offset < page.count {
            let size = piece == 1 && offset > 8192 ? 65536 : piece
            let end = min(offset + size, page.count)
            stream.feed(page.subdata(in: offset..<end))
            offset = end
        }
        let pieces = try stream.finish()
        #expect(pieces.summary == whole.summary)
    }

    @Test func aPageThatScansToTheEndHasNoStop() throws {
        let scanned = try HTMLScanner().scan(
            Data(#"<html><head><meta property="og:video" content="https://m.example/a.mp4"></head></html>"#.utf8), url: "https://example.com/")
        #expect(scanned.summary.stop == nil)
    }
}
