import Testing
import TrawlCore

@Suite("URL parts read by byte")
struct URLBytesTests {
    @Test func hostsAreTheDomainOrBelowIt() {
        #expect("giphy.com".isHost(orBelow: "giphy.com"))
        #expect("media.giphy.com".isHost(orBelow: "giphy.com"))
        #expect("a.b.giphy.com".isHost(orBelow: "giphy.com"))
        #expect(!"notgiphy.com".isHost(orBelow: "giphy.com"))
        #expect(!"giphy.com.evil".isHost(orBelow: "giphy.com"))
        #expect(!"com".isHost(orBelow: "giphy.com"))
        #expect(!"".isHost(orBelow: "giphy.com"))
        // What `host.hasSuffix("." + domain)` said: a bare leading dot is below.
        #expect(".giphy.com".isHost(orBelow: "giphy.com"))
    }

    @Test func delimitersAreFoundAsBytesOnScalarBoundaries() {
        let url = "https://Média.example:8080/é/b.gif?q#f"
        let start = url.firstRange(ofASCII: "://")!.upperBound
        let hostEnd = url.utf8Index(from: start, to: URLByte.endsHost)
        #expect(url[start..<hostEnd] == "Média.example:8080")
        let pathEnd = url.utf8Index(from: hostEnd, to: URLByte.endsPath)
        #expect(url[hostEnd..<pathEnd] == "/é/b.gif")
        #expect(url.utf8Index(from: pathEnd) { $0 == UInt8(ascii: "!") } == url.endIndex)
    }

    @Test func printableASCIIIsOneCharacterPerByte() {
        #expect("https://a.b/c?d=e f".isPrintableASCII)
        #expect("".isPrintableASCII)
        #expect(!"a\r\nb".isPrintableASCII, "CR LF is one Character of two bytes")
        #expect(!"é".isPrintableASCII)
        #expect(!"a\u{7F}".isPrintableASCII)
    }
}
