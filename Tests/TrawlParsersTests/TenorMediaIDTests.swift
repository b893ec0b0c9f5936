import Foundation
import Testing
import TrawlCore

@testable import TrawlParsers

/// The post id a Tenor media file's path carries, and the lookup it leads to only with a key.
@Suite("Tenor media files name their post")
struct TenorMediaIDTests {
    @Test(arguments: [
        // Published pairs of a post id and its files' URLs (the API answers both).
        ("https://media.tenor.com/DwH1qQbIoCoAAAAC/aidan-hutchinson-detroit-lions.gif", "1081415491857719338"),
        ("https://media.tenor.com/DwH1qQbIoCoAAAPo/aidan-hutchinson-detroit-lions.mp4", "1081415491857719338"),
        ("https://media1.tenor.com/m/JfrX5uK-_qIAAAAC/banana-cat.gif", "2736737110227615394"),
        ("https://c.tenor.com/ZrIUywnkAAEAAAAM/otter-juggling.gif", "7400000000000000001"),
    ])
    func postIDOfAMediaFile(_ url: String, _ id: String) {
        #expect(TenorSite.postID(ofMedia: URL(string: url)!) == id)
    }

    @Test(arguments: [
        "https://media.tenor.com/images/989f5142a249e25c776e3d47682a8bd9/tenor.gif",  // the v1 API's files: no id
        "https://media.tenor.com/videos/afb6f589849a2dc12a7af58905f222b1/mp4",
        "https://tenor.com/view/banana-cat-gif-2736737110227615394",  // a page, read as a page
        "https://media.tenor.com/short/x.gif",
        "https://media.tenor.com/Zr!Uywnk@AEAAAAC/x.gif",
        "https://media.example.com/DwH1qQbIoCoAAAAC/x.gif",
    ])
    func notAMediaFileOfAPost(_ url: String) {
        #expect(TenorSite.postID(ofMedia: URL(string: url)!) == nil)
    }

    @Test func thePostIsAskedOnlyWithAKey() throws {
        let site = TenorSite()
        let file = URL(string: "https://media.tenor.com/DwH1qQbIoCoAAAAC/aidan-hutchinson-detroit-lions.gif")!
        #expect(site.sources(for: file, keys: SiteKeys()).isEmpty)
        #expect(site.unaskedSource(for: file, keys: SiteKeys())?.contains("TRAWL_TENOR_KEY") == true)
        let sources = site.sources(for: file, keys: SiteKeys(["tenor": "k"]))
        #expect(sources.map(\.url.absoluteString) == ["https://tenor.googleapis.com/v2/posts?ids=1081415491857719338&key=k&client_key=trawl"])
        #expect(site.unaskedSource(for: file, keys: SiteKeys(["tenor": "k"])) == nil)
        // A page has no such source, key or not.
        #expect(site.sources(for: URL(string: "https://tenor.com/view/x-gif-1")!, keys: SiteKeys(["tenor": "k"])).isEmpty)
    }
}
