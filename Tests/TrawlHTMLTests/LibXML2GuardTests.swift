import CLibXML2
import Foundation
import Testing

@testable import TrawlHTML

/// The thinned feed reads libxml2 2.9's private parser state only where it was checked against
/// that version; every `htmlParseChunk` result is looked at.
@Suite("libxml2 version guard and checked calls")
struct LibXML2GuardTests {
    @Test func thisMachinesLibXML2IsTheCheckedOneAndBothPathsAgree() throws {
        // Debian 12's libxml2 is 2.9.14: the thinned feed is on here, so the suite exercises it;
        // `thinsInput: false` is the portable path every other version takes.
        let compiled = Int(trawl_html_compiled_version())
        let loaded = Int(trawl_html_runtime_version())
        #expect(compiled / 100 == 209 && loaded / 100 == 209, "libxml2 \(compiled) / \(loaded): update the guard's tests")
        #expect(LibXML2.readsPushState)
        let html = Data(
            #"<html><head><meta property="og:image" content="https://m.example/a.gif"><script>var x = {"gif":"https://m.example/b.gif"};</script></head><body><p class="x">text</p><img src="c.gif"></body></html>"#
                .utf8)
        let thinned = try HTMLScanner(thinsInput: true).scan(html, url: "https://example.com/")
        let portable = try HTMLScanner(thinsInput: false).scan(html, url: "https://example.com/")
        #expect(thinned.summary == portable.summary)
        #expect(thinned.embedded.map(\.body) == portable.embedded.map(\.body))
    }

    @Test func chunkResultsThatStopTheParseAreFailures() {
        // Benign recovery errors (an unknown HTML5 tag, a misplaced element) do not stop a scan.
        #expect(LibXML2.chunkFailure(0) == nil)
        #expect(LibXML2.chunkFailure(Int32(XML_HTML_UNKNOWN_TAG.rawValue)) == nil)
        #expect(LibXML2.chunkFailure(Int32(XML_ERR_NAME_REQUIRED.rawValue)) == nil)
        // Fatal ones become an error naming the call.
        for fatal in [Int32(-1), Int32(XML_ERR_NO_MEMORY.rawValue), Int32(XML_ERR_INTERNAL_ERROR.rawValue)] {
            let reason = LibXML2.chunkFailure(fatal)
            #expect(reason?.contains("htmlParseChunk") == true, "\(fatal)")
        }
    }

    @Test func brokenDocumentsStillScanWithoutAFailure() throws {
        // Every kind of bad markup libxml2 recovers from: not a failure of the call.
        for html in ["<html><<<>>></html>", "<p <b>x</p>", "\u{0}\u{1}<div>", "</a></b></c>", String(repeating: "<div>", count: 5000)] {
            _ = try HTMLScanner().scan(Data(html.utf8), url: "https://example.com/")
        }
    }
}
