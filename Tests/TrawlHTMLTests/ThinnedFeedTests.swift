import Foundation
import Testing
import TrawlCore
import TrawlTesting

@testable import TrawlHTML

/// The thinned feed must read exactly what libxml2 reads: each page is scanned with and
/// without it and the results compared (the corpus-wide comparison is in the corpus suite).
@Suite("Thinned feed")
struct ThinnedFeedTests {
    func scanBothWays(_ html: [UInt8], charset: String? = "utf-8") throws -> (bypassed: ScannedDocument, parsed: ScannedDocument) {
        let data = Data(html)
        let bypassed = try HTMLScanner(thinsInput: true).scan(data, url: "https://example.com/", declaredCharset: charset)
        let parsed = try HTMLScanner(thinsInput: false).scan(data, url: "https://example.com/", declaredCharset: charset)
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
        let html: [UInt8] =
            Array(#"<html><head><script type="application/json">{"t":""#.utf8) + [0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2]
            + Array(#""}</script></head></html>"#.utf8)
        let (bypassed, parsed) = try scanBothWays(html, charset: "windows-1251")
        #expect(bypassed.embedded.map(\.body) == parsed.embedded.map(\.body))
        #expect(bypassed.embedded.first.map { String(decoding: $0.body, as: UTF8.self) } == #"{"t":"Привет"}"#)
    }

    @Test func findsTextEnds() {
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

    // MARK: text and attributes

    @Test func textAndAttributesLeftOutChangeNothing() throws {
        let cases = [
            // Text in html or head that is not blank opens an implied <p> (and body).
            "<html>hello<head><title>t</title><meta name=a content=b></head></html>",
            "<html><head> x <meta property=og:image content=https://m.example/a.gif><title>t</title></head></html>",
            "<html><head>\n \t<meta name=a content=b>\r\n<title> spaced  title </title></head><body> text </body></html>",
            "hello <b class=x>world</b><img src=https://m.example/a.gif width=3>",
            "  \n<meta name=a content=b><p class=\"x\">text &amp; more &#x263a; &bogus; <img src=a.gif></p>",
            // The title's text, whatever tags it holds.
            "<html><head><title>a <b class=x>b</b> <i id=y></i> c</title></head></html>",
            "<svg class=icon><title>icon</title><path d=\"M0 0L1 1\"/></svg><title>second</title>",
            // Every attribute ScanState reads, among others it does not: Tag.readAttributes must
            // keep them all.
            #"<html><head><base href="/b/" target=_top><meta itemprop=image value=v.gif class=m><meta property=og:video content=c.mp4 data-x=1>"#
                + #"<link itemprop=thumbnail href=t.gif rel=x type=image/gif as=image title=T crossorigin><script type=application/json id=d nonce=n async>{"a":1}</script></head>"#
                + #"<body><video src=v.mp4 poster=p.jpg type=video/mp4 width=640 height=360 class=v controls><source src=s.webm data-src=d.webm type=video/webm width=1 height=2 media=m></video>"#
                + #"<audio src=a.mp3 poster=x type=audio/mpeg width=1 height=1 preload=none></audio><picture class=p><source srcset="a.webp 1x" data-srcset="b.webp 2x" sizes=100vw></picture>"#
                + #"<img data-src=d.gif data-original=o.gif data-lazy-src=l.gif data-gif=g.gif src="data:," srcset="s1.gif 1x, s2.gif 2x" data-srcset="ds.gif 1x" width=5 height=6 alt=A loading=lazy style="x">"#
                + #"<embed src=e.swf type=application/x-shockwave-flash width=7 height=8 quality=high></body></html>"#,
            // Landmarks and the attributes read of them (a section's id and class, an img's aria-hidden).
            #"<body><header class=h><img src=logo.gif></header><main id=m><article class=a data-x=1><section id=comments class="c x" data-y=2>"#
                + #"<img aria-hidden=true src=h.gif role=presentation></section><article><img src=r.gif></article></article>"#
                + #"<aside class=s><img src=s.gif></aside><nav><img src=n.gif></nav></main><footer><img src=f.gif></footer></body>"#,
            // Elements the scanner reads keep their attributes, in any case.
            "<DIV CLASS=a><IMG SRC=https://m.example/a.gif WIDTH=10><Meta Name=x Content=y></DIV>",
            "<imgx src=https://m.example/no.gif><img.x src=a><video-player src=b></video-player>",
            "<picture class=p><source srcset=\"a.webp 1x, b.webp 2x\" type=image/webp><img src=c.gif></picture>",
            // Self-closing and empty elements; `/` inside an unquoted value.
            "<div class=a/><img src=x.gif><a href=/x/>link</a><br/><span data-x=1 /><embed src=e.swf>",
            // Quoted values holding `>` and `<`, entities, newlines; values with no quotes.
            "<a title=\"a > b\" data-x='<img src=fake.gif>' href=x>t</a><img src=real.gif alt=\"1 &amp; 2\">",
            "<div\nclass=\"a\"\n\tid='b'\r\n>text</div><meta\nname=c\ncontent=d>",
            // Syntax left to libxml2: no blank between attributes, odd names, an empty value,
            // a form feed, a slash, unbalanced quotes.
            "<div a=\"1\"b=\"2\"><img src=a.gif></div><p @click=x :y=z>t</p><i a=>t</i>",
            "<div\u{0C}class=x>t</div><p a / b>t</p><b c=\"d>e</b><meta name=f content=g>",
            "<div a=x\"y>t</div><img src=after.gif>",
            // Markup inside comments, CDATA, processing instructions, a doctype mid-page.
            "<!-- <img src=c.gif> <div class=x> --><img src=d.gif><!--> <meta name=a content=b> -->",
            "<![CDATA[ <img src=x.gif> ]]><?php echo '<img src=y.gif>'; ?><!DOCTYPE html><img src=z.gif>",
            "<p>a < b and c<d <3 <_x> <.y> </ p> <img src=lt.gif>",
            // Text and tags in textarea, noscript, template, iframe (markup to libxml2 2.9).
            "<textarea class=t><img src=ta.gif> text</textarea><noscript><img src=ns.gif></noscript><template><img src=tp.gif></template>",
            // A tag that never ends, and a document cut inside an attribute.
            "<div class=\"a\"><img src=a.gif><div class=\"b",
            "<img src=a.gif><div title='x",
        ]
        for html in cases { try expectSame(html, Comment(rawValue: html)) }
    }

    @Test func bytesLibXML2ReactsToAreLeftToIt() throws {
        // In text between tags and in attribute values: control characters, NUL (which can end
        // libxml2's parse), invalid UTF-8 (libxml2 switches to Latin-1 for the rest, which
        // changes a later non-ASCII attribute value), U+FFFE.
        let oddities: [[UInt8]] = [[0x01], [0x0B], [0x00], [0xFF], [0xC3], [0xEF, 0xBF, 0xBE], [0xC0, 0xAF], [0xED, 0xA0, 0x80]]
        let later = Array("<img src=\"https://m.example/é.gif\" alt=\"日本\"><title>té</title>".utf8)
        for odd in oddities {
            try expectSame(Array("<html><body><p>a".utf8) + odd + Array("b</p>".utf8) + later, "text \(odd)")
            try expectSame(Array("<html><body><p>".utf8) + odd + Array("</p>".utf8) + later, "text of one \(odd)")
            try expectSame(Array("<html><head>".utf8) + odd + Array("<meta name=a content=b>".utf8) + later, "head \(odd)")
            try expectSame(Array("<html><body><div title=\"a".utf8) + odd + Array("b\">t</div>".utf8) + later, "quoted \(odd)")
            try expectSame(Array("<html><body><div title=a".utf8) + odd + Array("b>t</div>".utf8) + later, "unquoted \(odd)")
        }
    }

    /// Invalid UTF-8 anywhere makes libxml2 read the rest as Latin-1: script text after it must
    /// come out transcoded as libxml2 gives it, not as the bytes were. And a document that ends
    /// inside a script with a `<` or a cut character reads as libxml2 reads it.
    @Test func afterInvalidUTF8AndAtTheDocumentsEnd() throws {
        let script = Array(#"<script type="application/json">{"t":"é 日本"}</script><meta name=a content="ü">"#.utf8)
        try expectSame([0xFF] + script, "invalid byte first")
        // Found by the byte soup: before libxml2 switches, chunks cut where it had not read yet.
        try expectSame([0xC3] + Array("<script type=+json></>s".utf8), "a cut sequence, then a script")
        try expectSame(Array("<script type=+json>".utf8) + [0xC3] + Array("</s".utf8) + [0x00] + Array("b".utf8), "a cut sequence and a NUL in a script")
        try expectSame(Array("<p>x".utf8) + [0xC3] + Array("</p>".utf8) + script, "a cut sequence in text")
        try expectSame(Array("<div title=\"".utf8) + [0xE6, 0x97] + Array("\">".utf8) + script, "a cut sequence in a value")
        for end: [UInt8] in [Array(" <".utf8), Array(">".utf8) + [0xC3], [0xE6, 0x97], Array("</sc".utf8), Array("<".utf8)] {
            try expectSame(Array(#"<script type="application/json">{"a":1}"#.utf8) + end, "script ending in \(end)")
        }
    }

    @Test func findsUTF8LibXML2CannotRead() {
        func validate(_ bytes: [UInt8], pending: Int = 0) -> Int? {
            bytes.withUnsafeBufferPointer { UTF8Scan.validate($0, pending: pending) }
        }
        // Each kind of sequence at every offset of the 32- and 8-byte paths.
        for offset in 0..<70 {
            let a = [UInt8](repeating: UInt8(ascii: "a"), count: offset)
            #expect(validate(a + Array("é日𝒢".utf8) + a) == 0, "valid at \(offset)")
            #expect(validate(a + [0xFF] + a) == nil, "0xFF at \(offset)")
            #expect(validate(a + [0xC3] + Array("x".utf8) + a) == nil, "a lead without its byte at \(offset)")
            #expect(validate(a + [0xED, 0xA0, 0x80] + a) == nil, "a surrogate at \(offset)")
            #expect(validate(a + [0xE6, 0x97]) == 1, "cut at the end after \(offset)")
        }
        #expect(validate([0x9C] + Array("abc".utf8), pending: 1) == 0)
        #expect(validate(Array("abc".utf8), pending: 1) == nil)
        #expect(validate([0x80], pending: 2) == 1)
    }

    /// Stripped tags and left-out text must come out the same wherever a block boundary falls.
    @Test func thinningAtBlockBoundaries() throws {
        let piece = Array(#"<div class="card" data-x='a>b'>some text &amp; more</div><img src="https://m.example/b.gif" class=c>  <span id=s/>tail text"#.utf8)
        let head = Array("<html><head><title>t</title></head><body>".utf8)
        let tail = Array("<meta property=og:image content=https://m.example/tail.gif></body></html>".utf8)
        let block = HTMLStreamScanner.blockSize
        for shift in 0...piece.count {
            let padding = Array("<p>".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: block - head.count - shift - 7) + Array("</p>".utf8)
            try expectSame(head + padding + piece + tail, "boundary \(shift) bytes into the piece")
        }
    }

    /// Text that runs past a block's end is left out as it arrives: up to its `<`, or up to a
    /// byte libxml2 must see, wherever that falls; a character cut by the block end waits.
    @Test func longTextAcrossBlocks() throws {
        let head = Array("<html><head><title>t</title></head><body><p class=a>".utf8)
        let tail = Array("</p><img src=https://m.example/after.gif><title>late</title></body></html>".utf8)
        let block = HTMLStreamScanner.blockSize
        let oddities: [[UInt8]] = [[], [0x00], [0x01], [0xFF], Array("é".utf8), Array("日".utf8), Array("&amp;".utf8)]
        for odd in oddities {
            for offset in [block - head.count - 2, block - head.count, block - head.count + 1, block + 5000, 2 * block + 3] {
                let filler = [UInt8](repeating: UInt8(ascii: "t"), count: offset)
                try expectSame(head + filler + odd + [UInt8](repeating: UInt8(ascii: "u"), count: block) + tail, "\(odd) after \(offset) bytes of text")
            }
        }
        // A character cut by a block boundary, at every byte of it.
        for cut in 0..<4 {
            let filler = [UInt8](repeating: UInt8(ascii: "t"), count: block - head.count - cut)
            try expectSame(head + filler + Array("𝒢日é".utf8) + filler + tail, "a character cut \(cut) bytes in")
        }
    }

    /// Documents built at random from fragments that exercise every path of the thinned feed,
    /// each scanned both ways. `TRAWL_FUZZ_ROUNDS=100000` runs more of them, `TRAWL_FUZZ_SEED`
    /// others, and `TRAWL_FUZZ_DUMP=1` writes each document that differs to /tmp/fuzz-ROUND.html
    /// (`trawl-bench compare FILE` shows how).
    @Test func randomDocumentsReadTheSame() throws {
        let fragments: [[UInt8]] =
            [
                "<html>", "<head>", "</head>", "<body class=b>", "</body>", "<title>", "</title>", "<p>", "</p>", "<div class=\"a b\">",
                "</div>", "<span id=x data-y='1'>", "</span>", "<img src=https://m.example/r.gif width=5>", "<IMG SRC=u.gif>",
                "<meta property=og:video content=https://m.example/v.mp4>", "<link rel=preload href=x.mp4 as=video>",
                "<video poster=p.jpg><source src=v.webm type=video/webm></video>", "<picture>", "</picture>", "<br/>", "<hr>",
                "<script>var a = {\"u\":\"https://m.example/s.gif\"};</script>", "<script type=application/ld+json>{\"a\":1}</script>",
                "<style>p>a{}</style>", "<script/>", "<!-- c <img src=cm.gif> -->", "<!DOCTYPE html>", "<?x y?>", "<![CDATA[z]]>",
                " ", "\n  ", "text", " more text ", "&amp;", "&#169;", "é", "日本", "<", "</", "<!", ">", "\"", "'", "=", "/",
                "<a href=\"x > y\">", "</a>", "<svg><title>s</title></svg>", "<textarea>", "</textarea>", "<table><tr><td>",
                "<div a=1b=2>", "<p @x=y>", "<i a=>", "<b c='d>",
                "<img src=s.gif />", "<meta name=n content=c/>", "<img class=c src=\"q.gif\" loading=lazy alt='a b'>",
                "<script src=x.js integrity=\"sha384-x\" type=module id=i>var b = {\"u\":\"https://m.example/t.gif\"};</script>",
                "<video src=v.mp4 controls autoplay muted/>", "<source data-srcset=\"d.webp 2x\" media=\"(min-width: 1px)\">",
                "<link rel=\"alternate\" type=\"application/json+oembed\" href=\"https://o.example/e?u=1&amp;f=json\" title=\"t\">",
            ].map { Array($0.utf8) } + [[0x00], [0x01], [0xFF], [0xC3], [0x0C]]
        var generator = SplitMix64(seed: UInt64(ProcessInfo.processInfo.environment["TRAWL_FUZZ_SEED"] ?? "") ?? 0x7472_6177_6C)
        for round in 0..<(Int(ProcessInfo.processInfo.environment["TRAWL_FUZZ_ROUNDS"] ?? "") ?? 400) {
            var html: [UInt8] = []
            for _ in 0..<Int(generator.next() % 120 + 5) {
                html += fragments[Int(generator.next() % UInt64(fragments.count))]
            }
            if round % 8 == 3 {
                // Byte soup from markup's alphabet, for the corners no fragment reaches.
                let alphabet = Array("<<<>>//!!--\"\"''==  \n\tabcipstxy?&;#".utf8) + [0x00, 0x0C, 0xC3, 0xA9, 0xFF]
                for _ in 0..<Int(generator.next() % 60) {
                    let at = Int(generator.next() % UInt64(html.count + 1))
                    html.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: at)
                }
            }
            if round % 8 == 7 {
                // Behind a comment that puts it across the first 64 KiB block boundary. libxml2
                // alone reads a document differently where a block boundary cuts it (a script
                // cut inside `</script>` runs on to the next one), the thinned feed must not:
                // it must read what libxml2 reads of the document in one piece.
                let pad = HTMLStreamScanner.blockSize - 7 - Int(generator.next() % 300)
                let padded = Array("<!--".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: pad) + Array("-->".utf8) + html
                if String(validating: html, as: UTF8.self) == nil {
                    // Invalid UTF-8: from its block on libxml2 reads every byte itself, in
                    // blocks; before it, a construct cut by the boundary was read whole. So the
                    // result is libxml2's reading in blocks or its reading in one piece.
                    let (thinned, blocks) = try scanBothWays(padded)
                    let whole = try HTMLScanner(thinsInput: false).scan(Data(html), url: "https://example.com/", declaredCharset: "utf-8")
                    let asBlocks = thinned.summary == blocks.summary && thinned.embedded.map(\.body) == blocks.embedded.map(\.body)
                    let asWhole = thinned.summary == whole.summary && thinned.embedded.map(\.body) == whole.embedded.map(\.body)
                    #expect(asBlocks || asWhole, "round \(round) (invalid UTF-8): \(String(decoding: html, as: UTF8.self))")
                    continue
                }
                let thinned = try HTMLScanner(thinsInput: true).scan(Data(padded), url: "https://example.com/", declaredCharset: "utf-8")
                let whole = try HTMLScanner(thinsInput: false).scan(Data(html), url: "https://example.com/", declaredCharset: "utf-8")
                if ProcessInfo.processInfo.environment["TRAWL_FUZZ_DUMP"] != nil,
                    thinned.summary != whole.summary || thinned.embedded.map(\.body) != whole.embedded.map(\.body)
                {
                    try Data(padded).write(to: URL(fileURLWithPath: "/tmp/fuzz-\(round).html"))
                }
                #expect(thinned.summary == whole.summary, "round \(round): \(String(decoding: html, as: UTF8.self))")
                #expect(thinned.embedded.map(\.body) == whole.embedded.map(\.body), "round \(round)")
                continue
            }
            if ProcessInfo.processInfo.environment["TRAWL_FUZZ_DUMP"] != nil {
                let (a, b) = try scanBothWays(html)
                if a.summary != b.summary || a.embedded.map(\.body) != b.embedded.map(\.body) {
                    try Data(html).write(to: URL(fileURLWithPath: "/tmp/fuzz-\(round).html"))
                }
            }
            try expectSame(html, "round \(round): \(String(decoding: html, as: UTF8.self))")
        }
    }

    @Test func readsStartTagsAsLibXML2Does() {
        func read(_ text: String) -> StartTagReader.Read {
            Array(text.utf8).withUnsafeBufferPointer { StartTagReader.read($0, at: 0) }
        }
        func plain(_ text: String, selfClosing: Bool = false) -> StartTagReader.Read {
            let name = 1..<(1 + text.utf8.dropFirst().prefix { StartTagReader.isNameByte($0) }.count)
            return .tag(.init(name: name, end: text.utf8.count, isPlain: true, selfClosing: selfClosing))
        }
        func odd(_ text: String, nameLength: Int) -> StartTagReader.Read {
            .tag(.init(name: 1..<(1 + nameLength), end: text.utf8.count, isPlain: false, selfClosing: false))
        }
        for tag in [
            "<div>", "<div >", "<a href=x>", "<a href=/x/>", "<a b c=d>", "<a title=\"x > y\">", "<a b = 'c' >",
            "<a\nb=c\r\n\td=\"e\">", "<my-el.x:y_z a-b.c:d_e=1>", "<p title=\"日本 é\">", "<a href=x?a=1&amp;b=<>",
        ] {
            #expect(read(tag) == plain(tag), "\(tag)")
        }
        #expect(read("<br/>") == plain("<br/>", selfClosing: true))
        #expect(read("<span id=s />") == plain("<span id=s />", selfClosing: true))
        #expect(read("<div a=\"1\"b=2>") == odd("<div a=\"1\"b=2>", nameLength: 3))
        #expect(read("<p @click=x>") == odd("<p @click=x>", nameLength: 1))
        #expect(read("<i a=>") == odd("<i a=>", nameLength: 1))
        // A quote inside an unquoted value is part of it; a NUL ends the tag.
        #expect(read("<i a=x\"y>") == odd("<i a=x\"y>", nameLength: 1))
        #expect(read("<i a=\"x\u{0}y\">") == .tag(.init(name: 1..<2, end: 8, isPlain: false, selfClosing: false)))
        #expect(read("<i ''' c='>") == .incomplete)
        #expect(read("<i ''' c='>'>") == odd("<i ''' c='>'>", nameLength: 1))
        #expect(read("<p / >") == odd("<p / >", nameLength: 1))
        #expect(read("<p\u{0C}a=b>") == odd("<p\u{0C}a=b>", nameLength: 1))
        #expect(read("<p a=\"\u{01}\">") == odd("<p a=\"\u{01}\">", nameLength: 1))
        let long = "<" + String(repeating: "x", count: 100) + " a=b>"
        #expect(read(long) == odd(long, nameLength: 100))
        for cut in ["<div", "<div class", "<div class=", "<div class=\"a", "<div class=\"a\"", "<div class=a", "<div /", "<p a=\"x>y"] {
            #expect(read(cut) == .incomplete, "\(cut)")
        }
        // Invalid UTF-8 in a value: libxml2 would switch to Latin-1.
        let invalid: [UInt8] = Array("<p a=\"".utf8) + [0xFF] + Array("\" b=c>".utf8)
        #expect(
            invalid.withUnsafeBufferPointer { StartTagReader.read($0, at: 0) }
                == .tag(.init(name: 1..<2, end: invalid.count, isPlain: false, selfClosing: false)))
    }
}
