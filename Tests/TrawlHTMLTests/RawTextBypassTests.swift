import Foundation
import Testing
import TrawlCore

@testable import TrawlHTML

/// The raw-text bypass must read exactly what libxml2 reads: each page is scanned with and
/// without it and the results compared (the corpus-wide comparison is in the corpus suite).
@Suite("Raw-text bypass")
struct RawTextBypassTests {
    func scanBothWays(_ html: [UInt8], charset: String? = "utf-8") throws -> (bypassed: ScannedDocument, parsed: ScannedDocument) {
        let data = Data(html)
        let bypassed = try HTMLScanner(bypassesRawText: true).scan(data, url: "https://example.com/", declaredCharset: charset)
        let parsed = try HTMLScanner(bypassesRawText: false).scan(data, url: "https://example.com/", declaredCharset: charset)
        return (bypassed, parsed)
    }

    func expectSame(_ html: String, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try expectSame(Array(html.utf8), comment, sourceLocation: sourceLocation)
    }

    func expectSame(_ html: [UInt8], _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (bypassed, parsed) = try scanBothWays(html)
        #expect(bypassed.summary == parsed.summary, comment, sourceLocation: sourceLocation)
        #expect(bypassed.embedded.map(\.body) == parsed.embedded.map(\.body), comment, sourceLocation: sourceLocation)
        #expect(bypassed.embedded.map(\.info.origin.description) == parsed.embedded.map(\.info.origin.description), comment, sourceLocation: sourceLocation)
    }

    static let json = #"{"gif":"https://m.example/a.gif","title":"café </div> ü 日本"}"#

    @Test func scriptsLibXML2DecidesAbout() throws {
        let cases = [
            // A comment, a self-closed script and odd attributes: libxml2 decides what is a script.
            "<html><body><!-- <script> --> <meta property=og:image content=https://m.example/x.gif></body></html>",
            "<html><head><script src=a.js /><meta property=og:video content=https://m.example/v.mp4></head></html>",
            #"<html><head><script data-x=">" type="application/json">\#(Self.json)</script></head></html>"#,
            #"<html><head><script data-x='a>b'>window.a = \#(Self.json);</script></head></html>"#,
            #"<html><head><SCRIPT TYPE="application/json">\#(Self.json)</SCRIPT ><title>t</title></head></html>"#,
            // libxml2 ends a script at `</script` followed by anything.
            #"<html><head><script type="application/json">\#(Self.json)</scriptx><meta name=a content=b></head></html>"#,
            // A script that never ends, and one whose end tag is cut by the end of the document.
            #"<html><head><script type="application/json">\#(Self.json)"#,
            #"<html><head><script type="application/json">\#(Self.json)</scr"#,
            // Script text that holds markup, other end tags, and a start tag of its own.
            #"<html><head><script>document.write("<script src=x><\/script><style>p{}</style>"); window.b = \#(Self.json);</script></head></html>"#,
            "<html><head><style>p > a { color: red } </p> <script>x</script></style><meta name=a content=b></head></html>",
            "<html><head><style/><meta name=a content=b></head></html>",
            "<script>window.c = \(Self.json);</script>",
            "<html><body><textarea><script>window.d = \(Self.json);</script></textarea></body></html>",
            "<html><body><svg><script>window.e = \(Self.json);</script></svg><noscript><script>window.f = \(Self.json);</script></noscript></body></html>",
            "<html><head><script\ntype=\"application/json\"\n>\(Self.json)</script\n></head></html>",
            "<html><head><scripts>not a script</scripts><stylex>nor this</stylex></head></html>",
            "<html><head><script>\r\nwindow.g = \(Self.json);\r\n</script></head></html>",
        ]
        for html in cases { try expectSame(html, Comment(rawValue: html)) }
    }

    @Test func textLibXML2WouldChangeIsLeftToIt() throws {
        let head = Array(#"<html><head><script type="application/json">{"a":"x"#.utf8)
        let tail = Array(#"y","gif":"https://m.example/a.gif"}</script><meta name=a content=b></head></html>"#.utf8)
        // Control characters libxml2 drops, invalid UTF-8 (libxml2 switches to Latin-1), a NUL,
        // U+FFFE, an overlong sequence, a surrogate.
        let oddities: [[UInt8]] = [[0x01], [0x0B], [0x00], [0xFF], [0xC3], [0xEF, 0xBF, 0xBE], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80]]
        for odd in oddities {
            try expectSame(head + odd + tail, "bytes \(odd)")
        }
    }

    /// libxml2 gets the document in 64 KiB blocks; every construct the bypass reads must come
    /// out the same wherever a block boundary falls in it.
    @Test func blockBoundariesAnywhere() throws {
        let script = Array(#"<script type="application/json" id="data">\#(Self.json)</script>"#.utf8)
        let style = Array("<style>p { content: \"ü\" }</style>".utf8)
        let tail = Array("<meta property=og:image content=https://m.example/tail.gif></head><body></body></html>".utf8)
        let head = Array("<html><head><title>t</title>".utf8)
        let block = HTMLStreamScanner.blockSize
        for shift in 0..<(script.count + style.count + 2) {
            // The construct starts `shift` bytes before the first block boundary.
            let padding = [UInt8](repeating: UInt8(ascii: " "), count: block - head.count - shift)
            let html = head + padding + script + style + tail
            let scanned = try HTMLScanner().scan(Data(html), url: "https://example.com/", declaredCharset: "utf-8")
            #expect(scanned.embedded.map { String(decoding: $0.body, as: UTF8.self) } == [Self.json], "boundary \(shift) bytes into the script")
            #expect(scanned.summary.firstMeta("og:image") == "https://m.example/tail.gif", "boundary \(shift) bytes into the script")
        }
    }

    @Test func legacyCharsetsAreLeftToLibXML2() throws {
        // windows-1251 bytes for "Привет" in a script: libxml2 transcodes them, so no bypass.
        let html: [UInt8] = Array(#"<html><head><script type="application/json">{"t":""#.utf8) + [0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2]
            + Array(#""}</script></head></html>"#.utf8)
        let (bypassed, parsed) = try scanBothWays(html, charset: "windows-1251")
        #expect(bypassed.embedded.map(\.body) == parsed.embedded.map(\.body))
        #expect(bypassed.embedded.first.map { String(decoding: $0.body, as: UTF8.self) } == #"{"t":"Привет"}"#)
    }

    @Test func findsStartTagsAndTextEnds() {
        func startTag(_ text: String) -> RawTextBypass.StartTag {
            Array(text.utf8).withUnsafeBufferPointer { RawTextBypass.nextStartTag(in: $0, from: 0) }
        }
        #expect(startTag("<p>a</p><script>x") == .endsBefore(16))
        #expect(startTag("<Style media=\"a>b\">") == .endsBefore(19))
        #expect(startTag("<scripts><styles>") == .none)
        #expect(startTag("<p><scr") == .incomplete(at: 3))
        #expect(startTag("<p><script type=") == .incomplete(at: 3))
        #expect(startTag("<p><") == .incomplete(at: 3))

        func stop(_ text: [UInt8]) -> RawTextBypass.TextStop {
            text.withUnsafeBufferPointer { RawTextBypass.textStop(in: $0, from: 0, element: .script) }
        }
        #expect(stop(Array("a</div></SCRIPT>".utf8)) == .init(index: 7, reason: .endTag))
        #expect(stop(Array("a</scr".utf8)) == .init(index: 1, reason: .incomplete))
        #expect(stop(Array("ab<".utf8)) == .init(index: 2, reason: .incomplete))
        #expect(stop(Array("ab".utf8) + [0xE6, 0x97]) == .init(index: 2, reason: .incomplete))
        #expect(stop(Array("ab".utf8) + [0x0C]) == .init(index: 2, reason: .unusual))
        #expect(stop(Array("日本\t\r\n".utf8)) == .init(index: 9, reason: .end))

        // The eight-bytes-at-a-time path finds each kind of byte at every offset of a word.
        let specials: [([UInt8], RawTextBypass.TextStop.Reason)] = [
            (Array("</script>".utf8), .endTag), ([0x1F], .unusual), ([0xFF], .unusual), ([0x00], .unusual),
        ]
        for (special, reason) in specials {
            for offset in 0..<24 {
                let text = [UInt8](repeating: UInt8(ascii: "a"), count: offset) + special + [UInt8](repeating: UInt8(ascii: "b"), count: 20)
                #expect(stop(text) == .init(index: offset, reason: reason), "\(special) at \(offset)")
            }
        }
        let mixed = Array("abc\tdef\n{\"é\":\"日本\"} x<y z</p>".utf8)
        #expect(stop(mixed + Array("</script>".utf8)) == .init(index: mixed.count, reason: .endTag))
    }
}
