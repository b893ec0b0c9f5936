import Foundation
import Testing
import TrawlCore
import TrawlTesting

@testable import TrawlHTML

@Suite("HTML scanner")
struct HTMLScannerTests {
    static let page = """
        <!doctype html><html><head>
        <title> A &amp; B </title>
        <base href="https://cdn.example.com/base/">
        <meta property="og:video" content="https://media.example.com/a.mp4">
        <meta property="OG:Video:Width" content="480">
        <meta name="twitter:image" content="https://media.example.com/a.jpg">
        <meta itemprop="contentURL" content="//i.example.com/a.gif">
        <meta name=og:image value=https://media.example.com/broken.gif>
        <link rel="alternate" type="application/json+oembed" href="/oembed?url=x">
        <link rel="canonical" href="https://example.com/page">
        <link rel="preload" as="fetch" href="/api/gif/1.json">
        <script type="application/ld+json"><!-- {"@type":"VideoObject","contentUrl":"https://media.example.com/ld.mp4"} --></script>
        <script id="__NEXT_DATA__" type="application/json">{"props":{"gif":"https://media.example.com/next.gif"}}</script>
        <script>
          var skip = "a = {not: json}"; // window.fake = {"x": 1}
          window.__STATE__ = {"media": {"url": "https:\\/\\/media.example.com\\/state.webp"}, "s": "}{"};
          window._config = JSON.parse("{\\"post\\":{\\"url\\":\\"https:\\\\/\\\\/media.example.com\\\\/parse.mp4\\"}}");
          var literal = {unquoted: "https://media.example.com/js.gif"};
          if (a == {}) {}
        </script>
        </head><body>
        <video poster="poster.jpg" width="320" height="240"><source src="v.webm" type="video/webm"><source src="v.mp4" type="video/mp4"></video>
        <picture><source srcset="p-small.webp 1x, p-big.webp 2x" type="image/webp"><img src="p.gif" alt="pic"></picture>
        <img src="data:image/gif;base64,R0lGOD" data-src="lazy.gif" srcset="s1.gif 100w, s2.gif 400w">
        </body></html>
        """

    func scan(_ html: String, charset: String? = "utf-8") throws -> ScannedDocument {
        try HTMLScanner().scan(Data(html.utf8), url: "https://example.com/page", declaredCharset: charset)
    }

    @Test func readsMetaLinksAndTitle() throws {
        let summary = try scan(Self.page).summary
        #expect(summary.title == "A & B")
        #expect(summary.baseHref == "https://cdn.example.com/base/")
        #expect(summary.firstMeta("og:video") == "https://media.example.com/a.mp4")
        #expect(summary.firstMeta("og:video:width") == "480")
        #expect(summary.firstMeta("twitter:image") == "https://media.example.com/a.jpg")
        #expect(summary.firstMeta("contenturl") == "//i.example.com/a.gif")
        #expect(summary.firstMeta("og:image") == "https://media.example.com/broken.gif")
        #expect(summary.links.contains { $0.rel == ["alternate"] && $0.type == "application/json+oembed" && $0.href == "/oembed?url=x" })
        #expect(summary.links.contains { $0.rel == ["canonical"] })
        #expect(summary.links.contains { $0.rel == ["preload"] && $0.as == "fetch" })
        #expect(summary.resolve("poster.jpg") == "https://cdn.example.com/base/poster.jpg")
    }

    @Test func readsMediaElements() throws {
        let elements = try scan(Self.page).summary.mediaElements
        let video = try #require(elements.firstIndex { $0.tag == .video })
        #expect(elements[video].poster == "poster.jpg")
        #expect(elements[video].width == 320)
        let sources = elements.filter { $0.tag == .source && $0.parent == video }
        #expect(sources.map(\.src) == ["v.webm", "v.mp4"])
        #expect(elements.contains { $0.tag == .source && $0.inPicture && $0.srcset == ["p-small.webp", "p-big.webp"] })
        #expect(elements.contains { $0.tag == .img && $0.src == "p.gif" && $0.inPicture })
        #expect(elements.contains { $0.tag == .img && $0.src == "lazy.gif" && $0.srcset == ["s1.gif", "s2.gif"] })
    }

    @Test func cutsEveryJSONPayloadOut() throws {
        let embedded = try scan(Self.page).embedded
        let byKind = Dictionary(grouping: embedded) { payload -> EmbeddedLocator.Kind? in
            if case .embedded(let locator) = payload.info.origin { return locator.kind }
            return nil
        }
        #expect(byKind[.linkedData]?.first?.text.contains("ld.mp4") == true)
        #expect(byKind[.nextData]?.first?.text.contains("next.gif") == true)
        let assignments = byKind[.assignment] ?? []
        #expect(assignments.count == 1)
        #expect(assignments.first?.text.contains(#"state.webp"#) == true)
        let parsed = try #require(byKind[.jsonParse]?.first)
        let json = try JSONValue(parsing: parsed.body)
        #expect(json[path: "post", "url"]?.string == "https://media.example.com/parse.mp4")
        if case .embedded(let locator) = parsed.info.origin { #expect(locator.name == "window._config") }
        #expect(embedded.allSatisfy { $0.info.isJSON })
        #expect(!embedded.contains { $0.text.contains("js.gif") })
    }

    @Test func legacyCharsetIsTranscoded() throws {
        // "Привет" in windows-1251, declared by the header.
        let cyrillic: [UInt8] = [0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2]
        let html = Data("<html><head><title>".utf8) + Data(cyrillic) + Data("</title></head></html>".utf8)
        let summary = try HTMLScanner().scan(html, url: "https://example.ru/", declaredCharset: "windows-1251").summary
        #expect(summary.title == "Привет")
        #expect(summary.charset == "windows-1251")
    }

    @Test func wrongDeclaredCharsetDoesNotMangleUTF8() throws {
        let html = #"<html><head><meta charset="windows-1251"><title>Привет, мир</title></head></html>"#
        let summary = try scan(html, charset: nil).summary
        #expect(summary.title == "Привет, мир")
        #expect(summary.charset == "utf-8")
    }

    @Test func invalidBytesForTheDeclaredCharsetDoNotCrash() throws {
        var html = Data("<html><head><title>caf".utf8)
        html += Data([0xE9, 0xFF, 0xC0, 0x80])
        html += Data(#"</title><meta property="og:image" content="https://x.example/a.gif"></head></html>"#.utf8)
        let summary = try HTMLScanner().scan(html, url: "https://x.example/", declaredCharset: "utf-8").summary
        #expect(summary.firstMeta("og:image") == "https://x.example/a.gif")
        #expect(summary.title?.hasPrefix("caf") == true)
    }

    @Test func brokenMarkupStillYieldsTags() throws {
        let html = #"<meta property="og:video" content="https://a.example/v.mp4"><div><p><video src=x.mp4><b></i></table>"#
        let summary = try scan(html).summary
        #expect(summary.firstMeta("og:video") == "https://a.example/v.mp4")
        #expect(summary.mediaElements.first?.src == "x.mp4")
    }

    @Test func emptyAndBinaryInputs() throws {
        #expect(try scan("").summary.metaTags.isEmpty)
        let binary = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        _ = try HTMLScanner().scan(binary, url: "https://x.example/", declaredCharset: nil)
    }

    @Test func xpathDocument() throws {
        let document = try HTMLDocument(parsing: Data(Self.page.utf8), url: "https://example.com/page")
        // libxml2 2.9 does not know <source> is empty: the second nests in the first.
        let sources = try document.select("//video//source")
        #expect(sources.map { $0.attributes["src"] } == ["v.webm", "v.mp4"])
        #expect(try document.string("string(//title)").contains("A & B"))
        #expect(throws: HTMLError.self) { try document.select("//[") }
    }
}

/// Every real page, fed in several chunk sizes, must scan the same as in one piece.
@Suite("HTML scanner on the corpus", .tags(.corpus))
struct HTMLScannerCorpusTests {
    /// Every HTML page of the corpus; throws ``CorpusError`` when it is missing, which fails
    /// each test that takes its arguments from here.
    static func pages() throws -> [URL] {
        try Corpus.genericPages() + Corpus.siteEntries().filter { $0.kind == "html" }.map(\.path)
    }

    @Test func corpusIsPresent() throws {
        #expect(try Self.pages().count > 100)
    }

    @Test(arguments: try pages())
    func chunkingDoesNotChangeTheResult(page: URL) throws {
        let data = try Data(contentsOf: page)
        let whole = try HTMLScanner().scan(data, url: page.absoluteString)
        // Tiny chunks split tags and UTF-8 sequences; keep their cost bounded on big pages.
        // 7-byte pieces cost a call each; keep them to pages of moderate size.
        let sizes = data.count <= 300_000 ? [7, 4093, 100_003] : [4093, 100_003]
        for size in sizes {
            let stream = HTMLStreamScanner(url: page.absoluteString, declaredCharset: nil)
            var offset = data.startIndex
            while offset < data.endIndex {
                stream.feed(data[offset..<min(offset + size, data.endIndex)])
                offset += size
            }
            let chunked = try stream.finish()
            // Compare without printing whole summaries on failure (they run to megabytes).
            #expect(chunked.summary.metaTags == whole.summary.metaTags, "meta tags, chunk size \(size)")
            #expect(chunked.summary.links == whole.summary.links, "links, chunk size \(size)")
            #expect(chunked.summary.mediaElements.count == whole.summary.mediaElements.count, "media, chunk size \(size)")
            #expect(chunked.summary == whole.summary, "summary, chunk size \(size)")
            #expect(chunked.embedded.map(\.body) == whole.embedded.map(\.body), "embedded, chunk size \(size)")
            #expect(chunked.embedded.map(\.info.origin.description) == whole.embedded.map(\.info.origin.description), "chunk size \(size)")
        }
    }

    /// The thinned feed (script text read around libxml2, text and unread attributes left
    /// out) must give what libxml2 reading every byte gives.
    @Test(arguments: try pages())
    func thinnedFeedReadsWhatLibXML2Reads(page: URL) throws {
        let data = try Data(contentsOf: page)
        let bypassed = try HTMLScanner(thinsInput: true).scan(data, url: page.absoluteString)
        let parsed = try HTMLScanner(thinsInput: false).scan(data, url: page.absoluteString)
        #expect(bypassed.summary.metaTags == parsed.summary.metaTags, "meta tags")
        #expect(bypassed.summary.links == parsed.summary.links, "links")
        #expect(bypassed.summary.mediaElements.count == parsed.summary.mediaElements.count, "media elements")
        #expect(bypassed.summary == parsed.summary, "summary")
        #expect(bypassed.embedded.count == parsed.embedded.count, "embedded payloads")
        #expect(bypassed.embedded.map(\.body) == parsed.embedded.map(\.body), "embedded payloads")
        #expect(bypassed.embedded.map(\.info.origin.description) == parsed.embedded.map(\.info.origin.description))
    }

    /// The JSON reader must build the same value `JSONDecoder` does from every JSON response
    /// and every payload cut out of a page.
    @Test(arguments: try pages())
    func jsonReaderAgreesWithJSONDecoder(page: URL) throws {
        let scanned = try HTMLScanner().scan(try Data(contentsOf: page), url: page.absoluteString)
        for payload in scanned.embedded {
            // Script types that are not checked for JSON (ld+json, application/json) may hold
            // broken JSON: then both must refuse it.
            let decoded = try? JSONDecoder().decode(JSONValue.self, from: payload.body)
            #expect((try? JSONValue(parsing: payload.body)) == decoded, "\(payload.info.origin)")
        }
    }

    @Test func jsonReaderAgreesOnJSONResponses() throws {
        let files = try Corpus.siteEntries().filter { $0.path.pathExtension == "json" }.map(\.path)
        #expect(!files.isEmpty)
        for file in files {
            let data = try Data(contentsOf: file)
            #expect(try JSONValue(parsing: data) == JSONDecoder().decode(JSONValue.self, from: data), "\(file.lastPathComponent)")
        }
    }

    @Test func charsetMismatchPagesReadAsUTF8() throws {
        try Corpus.requireAvailable()
        for name in ["generic/qq.html", "sites/other/pikabu-story-charset-mismatch.html"] {
            let url = Corpus.root.appendingPathComponent(name)
            let summary = try HTMLScanner().scan(try Data(contentsOf: url), url: url.absoluteString).summary
            #expect(summary.charset == "utf-8", "\(name)")
            let title = try #require(summary.title, "\(name) has a title")
            // Mangled UTF-8 read as a legacy charset shows up as replacement characters or mojibake.
            #expect(!title.contains("\u{FFFD}"), "\(name): \(title)")
            #expect(title.unicodeScalars.contains { $0.value > 0x2E80 || (0x400..<0x500).contains($0.value) }, "\(name): \(title)")
        }
    }
}

@Suite("Script JSON extractor")
struct ScriptJSONExtractorTests {
    func extract(_ script: String) -> [ScriptJSONExtractor.Found] {
        Array(script.utf8).withUnsafeBufferPointer { ScriptJSONExtractor.extract(from: $0) }
    }

    @Test func assignmentsAndStrings() {
        let found = extract(#"window.a = {"k": "}", "n": [1, {"x": "]"}]}; b = 3; window['c'] = ["abcdefgh"];"#)
        #expect(found.map(\.name) == ["window.a", "window['c']"])
        #expect(found.first.map { String(decoding: $0.json, as: UTF8.self) } == #"{"k": "}", "n": [1, {"x": "]"}]}"#)
    }

    @Test func unterminatedInputEndsCleanly() {
        #expect(extract(#"window.a = {"k": "v""#).isEmpty)
        #expect(extract(#"x = JSON.parse("{\"a\":"#).isEmpty)
        #expect(extract("=").isEmpty)
    }

    @Test func linearOnAHugeScript() {
        // 2 MB of nested openers never closed: one pass, no quadratic rescans.
        let script = String(repeating: "a = {[", count: 350_000)
        #expect(extract(script).isEmpty)
    }
}

/// A document without a declared charset that arrives in pieces: its charset is decided from
/// its first bytes, so it is scanned as it comes instead of held until its end.
@Suite("Charset of a document in pieces")
struct StreamedCharsetTests {
    @Test func aLongASCIIStartDecidesWithoutTheEnd() {
        let start = Array(String(repeating: "<p>plain ascii text</p>", count: (Charset.asciiWindow / 23) + 1).utf8)
        let decided = start.withUnsafeBufferPointer { Charset.detect($0, declared: nil, isComplete: false) }
        #expect(decided?.name == "utf-8")
        // A short ASCII start still waits: a non-ASCII byte may come and tell.
        let short = Array(start.prefix(64 << 10))
        #expect(short.withUnsafeBufferPointer { Charset.detect($0, declared: nil, isComplete: false) } == nil)
    }

    @Test func aDocumentFedInPiecesScansAsTheWhole() throws {
        var text = "<html><head><title>t</title></head><body>"
        text += String(repeating: "<p>plain ascii text</p>", count: 60_000)
        text += #"<img src="https://m.example/é.gif" width="300"></body></html>"#
        let bytes = Data(text.utf8)
        let stream = HTMLStreamScanner(url: "https://site.example/", declaredCharset: nil)
        var offset = 0
        while offset < bytes.count {
            stream.feed(bytes[offset..<min(bytes.count, offset + 100_003)])
            offset += 100_003
        }
        let streamed = try stream.finish()
        let whole = try HTMLScanner().scan(bytes, url: "https://site.example/")
        #expect(streamed.summary == whole.summary)
        #expect(streamed.summary.mediaElements.count == 1)
    }
}
