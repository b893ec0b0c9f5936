import Foundation
import Testing

@testable import TrawlCore

@Suite("Query and pagination")
struct QueryTests {
    @Test func commandParametersAndTerm() {
        let query = Query(parsing: #"!GIPHY hello world rating:g lang:"en us" rating:pg"#)
        #expect(query.command == "giphy")
        #expect(query.parameters == ["rating": "g", "lang": "en us"])
        #expect(query.term == "hello world")
        #expect(query.url == nil)
    }

    @Test func plainSearch() {
        let query = Query(parsing: "cats rating:g")
        #expect(query.command == nil)
        #expect(query.term == "cats")
        #expect(query.parameters["rating"] == "g")
    }

    @Test func urlNeedsSchemeAndHost() {
        let url = Query(parsing: "https://giphy.com/gifs/cat-123?utm=x")
        #expect(url.url?.host == "giphy.com")
        #expect(url.parameters.isEmpty)
        #expect(url.term == "https://giphy.com/gifs/cat-123?utm=x")
        #expect(Query(parsing: "mailto:someone@example.com").url == nil)
        #expect(Query(parsing: "giphy.com/gifs").url?.absoluteString == "https://giphy.com/gifs")
        #expect(Query(parsing: "http://").url == nil)
    }

    @Test func quotedTermStaysTerm() {
        let query = Query(parsing: #""time:10" !tenor"#)
        #expect(query.term == "time:10")
        #expect(query.command == "tenor")
    }

    @Test func theTermsSchemeIsReadAsABrowserReadsIt() {
        for (text, scheme) in [
            ("!web data:text/html,<b> hi</b>", "data"), ("!web DATA:text/html,x", "data"), (#"!web " data:text/html,x""#, "data"),
            ("!web \"\u{01}\u{1F}File:///etc/passwd\"", "file"), ("rating:g data:text/html,a b", "data"), ("!web javascript:alert(1)", "javascript"),
            ("lang:en view-source:http://a.test/", "view-source"), ("!web \"ja\tvascript:alert(1)\"", "javascript"),
            ("https://a.test/x", "https"), ("cats", nil), ("cats: the musical", "cats"), ("!web 1x:y", nil), ("a b:c", nil),
        ] as [(String, String?)] {
            #expect(Query(parsing: text).termScheme == scheme, "\(text)")
        }
        // A scheme a browser acts on is never a filter.
        #expect(Query(parsing: "!web javascript:alert(1)").parameters.isEmpty)
        #expect(Query(parsing: "rating:g view-source:http://a.test/").parameters == ["rating": "g"])
    }

    @Test func paginationTokensRoundTrip() {
        for value in [Pagination.offset(25), .cursor("CAgQ1w"), .cursor("25"), .start] {
            #expect(Pagination(token: value.token) == value)
        }
        #expect(Pagination(token: "7") == .offset(7))
        #expect(Pagination(token: "cursor:") == nil)
        #expect(Pagination(token: "nonsense") == nil)
    }
}

@Suite("Canonical URLs and merging")
struct CanonicalURLTests {
    @Test func escapesFold() {
        let forms = [
            "https://i.imgur.com/a.gif?x=1&y=2",
            "https://i.imgur.com/a.gif?x=1&amp;y=2",
            #"https:\/\/i.imgur.com\/a.gif?x=1\u0026y=2"#,
            "//I.IMGUR.COM/a.gif?x=1&#38;y=2",
            "http://i.imgur.com:80/a.gif?x=1&y=2#frag",
        ]
        #expect(Set(forms.map(CanonicalURL.key)).count == 1)
    }

    @Test func mergeKeepsEachFileOnceAndFillsFields() {
        let origin = Provenance(parser: "a", origin: .document)
        var collection = MediaCollection()
        collection.insert(Media(url: "https://x.example/a.mp4", kind: .mp4, provenance: origin))
        collection.insert(Media(url: "https:\\/\\/x.example\\/a.mp4", kind: .mp4, width: 480, title: "A", provenance: origin))
        collection.insert(
            Media(url: "https://x.example/b.gif", kind: .gif, renditions: [Rendition(url: "https://x.example/a.mp4", kind: .mp4)], provenance: origin))
        #expect(collection.count == 1)
        #expect(collection.media[0].width == 480)
        #expect(collection.media[0].title == "A")
        #expect(collection.media[0].renditions.map(\.url) == ["https://x.example/b.gif"])
    }

    @Test func redactionHidesSecrets() {
        let url = Redaction.url("https://user:pw@api.example/v1?q=cats&api_key=SECRET&Token=T2#x")
        #expect(!url.contains("SECRET") && !url.contains("T2") && !url.contains("pw"))
        #expect(url.contains("q=cats"))
    }

    @Test func unescapeSurrogatePairs() {
        #expect(Unescape.jsonEscapes(#"\ud83d\ude00 \u00e9"#) == "😀 é")
        #expect(Unescape.htmlEntities("&lt;a&gt; &#x41;&#66; &bogus; &") == "<a> AB &bogus; &")
    }
}

@Suite("Whitespace")
struct WhitespaceTests {
    /// The fast trim drops what Foundation's `.whitespacesAndNewlines` drops, no more, no less.
    @Test(arguments: [
        "", " ", "  a b  ", "\t\n\r\u{0B}\u{0C}x\u{85}", "\u{A0}nbsp\u{A0}", "\u{3000}ideographic\u{2003}", "\u{2028}line\u{2029}",
        "é ", " 😀 ", "\u{200B}zero-width\u{200B}", "a\u{1680}", "\u{FEFF}bom",
    ])
    func matchesFoundation(_ text: String) {
        #expect(text.trimmedWhitespace == text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
