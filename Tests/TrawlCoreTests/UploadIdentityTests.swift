import Testing
import TrawlCore

@Suite("Upload identity")
struct UploadIdentityTests {
    @Test(arguments: [
        // Sizes, formats and hosts of one upload share a token.
        (
            "https://i.redditmedia.com/9s2bFsae5wieQoAyRth34dOssOW-dKSispbIRM-yo3E.gif?w=108&fm=jpg&s=1",
            "https://g.redditmedia.com/9s2bFsae5wieQoAyRth34dOssOW-dKSispbIRM-yo3E.gif?fm=mp4&s=2", true
        ),
        ("https://media.giphy.com/media/OpesLQSjwdGj6/giphy.gif", "https://media2.giphy.com/media/OpesLQSjwdGj6/200w.mp4", true),
        (
            "https://2.bp.blogspot.com/-chCZZinlUTg/WEcxvJo9gdI/AAAAAAAADnk/3ND_BspqN6Y2j5xxkLFW3RyS2Ig0NHZpQCLcB/s640/ipsum-opsum.gif",
            "https://2.bp.blogspot.com/-chCZZinlUTg/WEcxvJo9gdI/AAAAAAAADnk/3ND_BspqN6Y2j5xxkLFW3RyS2Ig0NHZpQCLcB/s1600/ipsum-opsum.gif", true
        ),
        (
            "https://video.twimg.com/ext_tw_video/670982928428593153/pu/vid/240x240/qDScBICzs_8cbLa-.mp4",
            "https://video.twimg.com/ext_tw_video/670982928428593153/pu/vid/720x720/b8RqA7ZOTrqgRHrx.mp4", true
        ),
        ("https://i.imgur.com/yjP1v4B.gifv", "https://i.imgur.com/yjP1v4B.mp4", true),
        (
            "https://news.example/wp-content/uploads/2019/06/dance-k3x9Qm2-640x480.gif", "https://news.example/wp-content/uploads/2019/06/dance-k3x9Qm2.gif",
            true
        ),
        // Different uploads never do: words, sizes, dates and version tags are not names.
        (
            "https://media1.giphy.com/media/v1.Y2lkPXRyYXds/TrwlCat1Jump/giphy.gif", "https://media1.giphy.com/media/v1.Y2lkPXRyYXds/TrwlCat2Nap/giphy.gif",
            false
        ),
        ("https://news.example/uploads/2019/05/640x480/cat.gif", "https://news.example/uploads/2019/05/640x480/dog.gif", false),
        ("https://news.example/images/image2016.gif", "https://news.example/images/image2016.mp4", false),
        ("https://news.example/a/MyHolidayPhoto.gif", "https://news.example/b/MyHolidayPhoto.mp4", false),
        ("https://i.imgur.com/yjP1v4B.gif", "https://i.imgur.com/yjP1v4C.gif", false),
        // The same name on another site is another upload.
        ("https://i.imgur.com/yjP1v4B.gif", "https://cdn.other.example/yjP1v4B.gif", false),
    ])
    func sharedTokens(a: String, b: String, same: Bool) {
        let shared = !Set(UploadIdentity.tokens(of: a)).isDisjoint(with: UploadIdentity.tokens(of: b))
        #expect(shared == same, "\(a) and \(b)")
    }

    @Test func sizesAndFormatsOfOneUploadAreOneMedia() {
        let origin = Provenance(parser: "test", origin: .document)
        var collection = MediaCollection()
        collection.insert(Media(url: "https://g.redditmedia.com/HLzqL8nYBAeZ.gif?s=1", kind: .gif, provenance: origin))
        collection.insert(Media(url: "https://g.redditmedia.com/HLzqL8nYBAeZ.gif?fm=mp4&s=2", kind: .mp4, provenance: origin))
        collection.insert(Media(url: "https://g.redditmedia.com/uU83cCXa06oV.gif?s=3", kind: .gif, provenance: origin))
        #expect(collection.media.map(\.url) == ["https://g.redditmedia.com/HLzqL8nYBAeZ.gif?s=1", "https://g.redditmedia.com/uU83cCXa06oV.gif?s=3"])
        #expect(collection.media[0].renditions.map(\.url) == ["https://g.redditmedia.com/HLzqL8nYBAeZ.gif?fm=mp4&s=2"])
    }

    @Test(arguments: [
        ("https://i.redditmedia.com/x.gif?w=108&fm=jpg&s=1", MediaKind.still),
        ("https://g.redditmedia.com/x.gif?w=108&fm=mp4&mp4-fragmented=false", .mp4),
        ("https://images.example/x.gif?auto=format&fm=pjpg", .still),
        ("https://cdn.example/v.mp4?format=redirect", .mp4),
        ("https://cdn.example/v.gif?format=png", .still),
        ("https://cdn.example/v.gif", .gif),
        ("https://images.ctfassets.net/a/b/report-image.png?fm=webp&w=820", .still),
    ])
    func formatParameterOutranksTheExtension(url: String, kind: MediaKind) {
        #expect(MediaKind(urlString: url) == kind)
    }
}
