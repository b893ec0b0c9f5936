import Testing
import TrawlCore

@Suite("ASCII search")
struct ASCIISearchTests {
    @Test func findsWordsAsBytes() {
        let url = "https://Média.example/a/b.GIF?x=.M3U8"
        #expect(url.firstRange(ofASCII: "://").map { url[..<$0.lowerBound] } == "https")
        #expect(url.firstRange(ofASCII: "/b.").map { String(url[$0.upperBound...]) } == "GIF?x=.M3U8")
        #expect(url.firstRange(ofASCII: "gif") == nil)
        #expect(url.containsASCII("gif", ignoringCase: true))
        #expect(url.containsASCII(".m3u8", ignoringCase: true))
        #expect(!url.containsASCII(".mpd", ignoringCase: true))
        #expect(!"ab".containsASCII("abc"))
        #expect("".firstRange(ofASCII: "") == "".startIndex..<"".startIndex)
        // Case folding touches letters only: '@' (0x40) is not '`' (0x60).
        #expect(!"a@b".containsASCII("a`b", ignoringCase: true))
        #expect("x_@[Y".containsASCII("_@[y", ignoringCase: true))
        // A bridged or non-contiguous string still works.
        let sub = Substring("zz://q").dropFirst(2)
        #expect(String(sub).firstRange(ofASCII: "://") != nil)
    }
}
