import Foundation
import Testing
import TrawlCore
import TrawlEngines
import TrawlHTML

@testable import TrawlParsers

/// The ranking stage, on pages written for these tests: what a page shows or mentions is its
/// media only with evidence beyond a file extension.
@Suite("Ranking")
struct RankingTests {
    static let url = "https://blog.example/2026/11/skating-cats"

    /// Every result set of `html` resolved with explanations asked for.
    static func explained(_ html: String) async throws -> [ResultSet] {
        let environment = Environment(
            transport: RecordedPages(pages: [url: ("text/html", html)]), scanner: HTMLScanner(),
            parsers: GenericParsers.chain(siteParsers: Sites.parsers))
        let provider = SearchProvider(environment: environment, webEngine: WebEngine())
        var request = Request(url)
        request.explain = true
        var sets: [ResultSet] = []
        for try await set in provider.results(for: request) { sets.append(set) }
        return sets
    }

    @Test func interfaceArtWithoutEvidenceIsDroppedAndSaysWhy() async throws {
        let sets = try await Self.explained(
            """
            <html><body><div class="box">
            <img src="https://blog.example/assets/partners/acme-gmbh-ss5863475-100x50.gif" width="100" height="50">
            <img src="https://blog.example/static/store/takeover-mobile.gif">
            <img src="https://blog.example/images/choc/expand.gif"></div>
            <article><img src="https://blog.example/uploads/cat-skates.gif" width="480" height="270" alt="A cat on a skateboard"></article>
            </body></html>
            """)
        let kept = sets.flatMap(\.media)
        #expect(kept.map(\.url) == ["https://blog.example/uploads/cat-skates.gif"])
        #expect(kept.first?.explanation == Explanation(.kept, rule: "declared-size"))
        #expect(kept.first?.evidence?.contains("declared 480×270") == true)
        let dropped = sets.flatMap { $0.dropped ?? [] }
        #expect(
            Set(dropped.map(\.url)) == [
                "https://blog.example/assets/partners/acme-gmbh-ss5863475-100x50.gif", "https://blog.example/static/store/takeover-mobile.gif",
                "https://blog.example/images/choc/expand.gif",
            ])
        #expect(dropped.allSatisfy { $0.explanation?.verdict == .dropped && $0.explanation?.rule == "no-evidence-beyond-extension" })
    }

    @Test func evidenceBeyondTheExtensionKeepsAGIF() async throws {
        let media = try await resolveHTML(
            """
            <html><body><article>
            <img src="https://media.giphy.com/media/Qm81xZabc/giphy.gif">
            <img src="https://cdn.blog.example/uploads/lede_2000x1000.gif">
            <img src="https://cdn.blog.example/uploads/dance.gif"><video src="https://cdn.blog.example/uploads/dance.mp4"></video>
            <img src="https://cdn.blog.example/uploads/wave-small.gif" width="120"
                 srcset="https://cdn.blog.example/uploads/wave-small.gif 120w, https://cdn.blog.example/uploads/wave.gif 960w">
            <img src="https://cdn.blog.example/misc/bare.gif">
            </article></body></html>
            """)
        let urls = Set(media.flatMap(\.allURLs))
        #expect(
            urls.isSuperset(of: [
                "https://media.giphy.com/media/Qm81xZabc/giphy.gif", "https://cdn.blog.example/uploads/lede_2000x1000.gif",
                "https://cdn.blog.example/uploads/dance.gif", "https://cdn.blog.example/uploads/wave.gif",
            ]))
        #expect(!urls.contains("https://cdn.blog.example/misc/bare.gif"))
    }

    @Test func aGIFBesideThePagesOtherGIFsIsOneOfThem() async throws {
        // A blog post's GIFs, uploaded together: one declares its size, the others do not.
        let media = try await resolveHTML(
            """
            <html><body><article>
            <img src="https://cdn.game.example/blog/fff-282/moisture.gif" width="900" height="664">
            <img src="https://cdn.game.example/blog/fff-282/enemy-bases.gif">
            <img src="https://cdn.game.example/blog/fff-282/cliffs.gif" width="60" height="40">
            </article><aside><img src="https://cdn.game.example/blog/fff-282/promo.gif"></aside></body></html>
            """)
        #expect(media.map(\.url) == ["https://cdn.game.example/blog/fff-282/moisture.gif", "https://cdn.game.example/blog/fff-282/enemy-bases.gif"])
    }

    @Test func anEmbeddedStateObjectsImagesNeedEvidenceItsAPIAnswersDoNot() async throws {
        let page = try await resolveHTML(
            """
            <html><body><script id="__APP_STATE__" type="application/json">{"help":{"cover":"https://cdn.blog.example/img/help/add-cover.gif"},
              "promo":{"banner":"https://cdn.blog.example/wp/landing-fanfix.gif"}}</script></body></html>
            """)
        #expect(page.isEmpty, "\(page.map(\.url))")
        let api = "https://api.gifs.example/v1/gif/Qm81xZ"
        let answer = try await resolvePage(api, [api: ("application/json", #"{"data":{"gif":"https://cdn.gifs.example/q/skate.gif"}}"#)])
        #expect(answer.map(\.url) == ["https://cdn.gifs.example/q/skate.gif"])
    }

    @Test func withoutExplainNothingOfTheRankingShows() async throws {
        let media = try await resolveHTML(#"<html><body><img src="https://cdn.blog.example/u/cat.gif" width="400" height="300"></body></html>"#)
        #expect(media.count == 1)
        #expect(media.first?.evidence == nil && media.first?.explanation == nil)
    }

    @Test func aSharedLazyPlaceholderIsNeverMediaNorARendition() async throws {
        let media = try await resolveHTML(
            """
            <html><body><article>
            <img src="/img/p.gif" data-src="https://cdn.blog.example/u/one.gif" width="400" height="300">
            <img src="/img/p.gif" data-src="https://cdn.blog.example/u/two.gif" width="400" height="300">
            <img src="/img/p.gif" data-src="https://cdn.blog.example/u/three.gif" width="400" height="300">
            <img src="https://cdn.blog.example/plugins/lazy-load/lazy_placeholder.gif" data-src="https://cdn.blog.example/u/four.gif" width="400" height="300">
            </article></body></html>
            """)
        #expect(
            media.map(\.url) == [
                "https://cdn.blog.example/u/one.gif", "https://cdn.blog.example/u/two.gif", "https://cdn.blog.example/u/three.gif",
                "https://cdn.blog.example/u/four.gif",
            ])
        #expect(media.allSatisfy { $0.renditions.isEmpty })
    }

    @Test func aLazyPlayerNamesItsFilesInDataAttributes() async throws {
        let media = try await resolveHTML(
            """
            <html><body><article><video poster="data:image/gif;base64,R0lGODlhAQABAAAAACw="
              data-mp4src="https://cdn.blog.example/v/18zqfwc3l0k28gif.mp4" data-webmsrc="https://cdn.blog.example/v/18zqfwc3l0k28gif.webm"></video>
            </article></body></html>
            """)
        #expect(media.map(\.url) == ["https://cdn.blog.example/v/18zqfwc3l0k28gif.mp4"])
        #expect(media.first?.renditions.map(\.url) == ["https://cdn.blog.example/v/18zqfwc3l0k28gif.webm"])
    }

    @Test func theOriginalBeatsTheFocalCropThePageNamed() async throws {
        // og:image names a 1200×630 focal crop; the body shows a 640 resize linked to the
        // uploaded file: one media, the upload its primary.
        let base = "https://2.bp.blogspot.com/-chCZZinlUTg/WEcxvJo9gdI/AAAAAAAADnk/3ND_BspqN6Y2j5xxkLFW3RyS2Ig0NHZpQCLcB"
        let media = try await resolveHTML(
            """
            <html><head><meta property="og:image" content="\(base)/w1200-h630-p-k-nu/ipsum.gif"></head><body><article>
            <a href="\(base)/s1600/ipsum.gif"><img src="\(base)/s640/ipsum.gif" width="640" height="105"></a></article></body></html>
            """)
        #expect(media.count == 1)
        #expect(media.first?.url == "\(base)/s1600/ipsum.gif")
        #expect(Set(media.first?.renditions.map(\.url) ?? []) == ["\(base)/w1200-h630-p-k-nu/ipsum.gif", "\(base)/s640/ipsum.gif"])
    }

    @Test(
        arguments: [
            ("https://x.example/a/w1200-h630-p-k-nu/n.gif", true, true, 1200),
            ("https://x.example/a/s72-c/n.gif", true, true, 72),
            ("https://x.example/a/s1600/n.gif", true, false, 1600),
            ("https://x.example/u/n-300x200.gif", true, false, 300),
            ("https://x.example/u/n.gif?fit=crop&w=108", true, true, 108),
            ("https://x.example/u/n.gif?s=abc123", false, false, nil),
        ] as [(String, Bool, Bool, Int?)])
    func resizeMarks(url: String, resized: Bool, cropped: Bool, width: Int?) {
        let marks = ResizeMarks(url)
        #expect(marks.isResized == resized && marks.isCropped == cropped && marks.width == width, "\(url)")
    }

    @Test func anHLSOnlySourceIsReturnedAsHLSAndBesideAnMP4IsItsRendition() async throws {
        let only = try await resolveHTML(
            """
            <html><body><article><video width="640" height="360">
            <source src="https://cdn.blog.example/v/7Qm81xZ/playlist.m3u8" type="application/x-mpegURL"></video></article></body></html>
            """)
        #expect(only.map(\.url) == ["https://cdn.blog.example/v/7Qm81xZ/playlist.m3u8"])
        #expect(only.first?.kind == .hls)
        let both = try await resolveHTML(
            """
            <html><body><article><video width="640" height="360">
            <source src="https://cdn.blog.example/v/7Qm81xZ/playlist.m3u8" type="application/x-mpegURL">
            <source src="https://cdn.blog.example/v/7Qm81xZ/720.mp4" type="video/mp4"></video></article></body></html>
            """)
        #expect(both.map(\.url) == ["https://cdn.blog.example/v/7Qm81xZ/720.mp4"])
        #expect(both.first?.renditions.map(\.kind) == [.hls])
    }

    /// A strip under 100 pixels high in one file is a header or a button; the same shape offered
    /// in other files too is a picture meant to be seen.
    @Test func aHeaderStripInOneFileIsNotMediaButAPictureOfThatShapeIs() async throws {
        let sets = try await Self.explained(
            """
            <html><body>
            <img src="https://blog.example/img/global/header/hdr-politics.gif" width="230" height="82" alt="Politics">
            <img src="https://blog.example/assets/subscribe_310x80.gif" alt="Subscribe">
            <article><picture><source srcset="https://blog.example/media/bar.webp" type="image/webp">
            <img src="https://blog.example/media/bar.gif" width="600" height="80" alt="A progress bar"></picture></article>
            </body></html>
            """)
        #expect(sets.flatMap(\.media).map(\.url) == ["https://blog.example/media/bar.gif"])
        let dropped = sets.flatMap { $0.dropped ?? [] }
        #expect(
            Set(dropped.map(\.url)).isSuperset(of: [
                "https://blog.example/img/global/header/hdr-politics.gif", "https://blog.example/assets/subscribe_310x80.gif",
            ]))
    }

    @Test func aMetaTagMayGiveItsValueInValue() async throws {
        let media = try await resolveHTML(
            """
            <html><head><meta property="og:video" value="https://cdn.blog.example/v/skate.mp4"></head><body></body></html>
            """)
        #expect(media.map(\.url) == ["https://cdn.blog.example/v/skate.mp4"])
    }

    @Test(arguments: [
        (480, 270, true), (600, 80, true), (100, 50, false), (728, 90, false), (40, 400, false), (120, 100, false),
    ])
    func declaredSizeWellAboveAnIcon(width: Int, height: Int, large: Bool) {
        #expect(MediaRanking.isWellAboveIconSize(width, height) == large)
    }
}
