import Foundation
import Testing
import TrawlCore

@testable import TrawlParsers

/// Alt text, content descriptions and tags travel from the sites' payloads to ``Media``, in the
/// shapes the APIs document (the recordings carry Tenor's `content_description`; their cases
/// require `caption`).
@Suite("Captions and tags")
struct CaptionAndTagsTests {
    private func payload(_ url: String, _ json: String) -> Payload {
        Payload(body: Data(json.utf8), info: PayloadInfo(url: URL(string: url)!, contentType: "application/json"))
    }

    @Test func giphyAltTextAndTags() throws {
        let media = try GiphyAPIParser().parse(
            payload(
                "https://api.giphy.com/v1/gifs/search?q=cat",
                """
                {"data":[{"id":"a1","title":"Cat GIF","alt_text":"a cat typing fast","tags":["cat", "typing", " ", "Cat"],
                  "images":{"original":{"url":"https://media.giphy.com/media/a1/giphy.gif","width":"200","height":"200"}}},
                 {"id":"a2","title":"Dog GIF",
                  "images":{"original":{"url":"https://media.giphy.com/media/a2/giphy.gif","width":"200","height":"200"}}}]}
                """)
        ).media
        #expect(media.count == 2)
        #expect(media[0].caption == "a cat typing fast")
        // Blank tags and repeats (ignoring case) are dropped, the site's order kept.
        #expect(media[0].tags == ["cat", "typing"])
        #expect(media[1].caption == nil)
        #expect(media[1].tags == nil)
    }

    @Test func tenorContentDescriptionAndTags() throws {
        let media = try TenorAPIParser().parse(
            payload(
                "https://tenor.googleapis.com/v2/search?q=otter",
                """
                {"results":[{"id":"t1","title":"","content_description":"an otter swimming","tags":["otter","swim"],
                  "media_formats":{"gif":{"url":"https://media.tenor.com/t1/AAAAC/otter.gif","dims":[498,374],"size":1000}}}],"next":""}
                """)
        ).media
        #expect(media.first?.caption == "an otter swimming")
        #expect(media.first?.tags == ["otter", "swim"])
    }

    @Test func tumblrPostTagsAndBlockAltText() throws {
        let media = try TumblrPostParser().parse(
            payload(
                "https://api.tumblr.com/v2/blog/trawl/posts/7300000000000000009",
                """
                {"response":{"posts":[{"id_string":"7300000000000000009","summary":"dancing cat","tags":["cats","dance"],
                  "content":[{"type":"image","alt_text":"a grey cat dancing",
                    "media":[{"url":"https://64.media.tumblr.com/abc/s540x810/cat.gif","type":"image/gif","width":540,"height":400}]}]}]}}
                """)
        ).media
        #expect(media.first?.caption == "a grey cat dancing")
        #expect(media.first?.tags == ["cats", "dance"])
    }

    @Test func jsonLeavesOutUnknownCaptionAndTags() throws {
        let plain = Media(url: "https://m.example/a.gif", kind: .gif, provenance: Provenance(parser: "p", origin: .document))
        let text = String(decoding: try JSONEncoder().encode(plain), as: UTF8.self)
        #expect(!text.contains("caption") && !text.contains("tags"))
        var tagged = plain
        tagged.caption = "a cat"
        tagged.tags = ["cat"]
        let decoded = try JSONDecoder().decode(Media.self, from: JSONEncoder().encode(tagged))
        #expect(decoded == tagged)
    }
}
