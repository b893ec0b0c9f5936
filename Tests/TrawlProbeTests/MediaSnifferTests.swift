import Testing
import TrawlTesting

@testable import TrawlProbe

/// Each format's facts from its first bytes, and the rule every reader keeps: a file cut short
/// gives fewer facts, never a wrong one.
@Suite("Media sniffing")
struct MediaSnifferTests {
    @Test func anAnimatedGIF() {
        let facts = MediaSniffer.read(MediaBytes.gif(width: 480, height: 270, frames: 12, delay: 5, loops: 0))
        #expect(facts == MediaFacts(format: .gif, width: 480, height: 270, animated: true, frames: 12, durationSeconds: 0.6, loopCount: 0))
    }

    @Test func aGIFStillIsNotAnimated() {
        let facts = MediaSniffer.read(MediaBytes.gif(width: 64, height: 64, frames: 1, loops: nil))
        #expect(facts.animated == false)
        #expect(facts.frames == 1)
        #expect(facts.durationSeconds == nil)
    }

    @Test func aGIFCutAfterItsFirstFrameDoesNotSayItIsStill() {
        let whole = MediaBytes.gif(width: 64, height: 64, frames: 1, loops: nil, trailer: false)
        let facts = MediaSniffer.read(whole)
        #expect(facts.frames == 1)
        #expect(facts.animated == nil, "a second frame may follow the bytes read")
        #expect(facts.width == 64)
    }

    /// A GIF whose first frame lies past the bytes read (a long comment first): its frames are
    /// unknown, not 0, and so is whether it moves (a one-frame GIF may carry a loop too).
    @Test func aGIFWhoseFirstFrameLiesPastTheBytesRead() {
        let looping = Array(MediaBytes.gif(width: 480, height: 270, frames: 8, loops: 0, commentBytes: 70_000).prefix(64 << 10))
        let facts = MediaSniffer.read(looping)
        #expect(facts.frames == nil)
        #expect(facts.animated == nil)
        #expect(facts.loopCount == 0)
        #expect(facts.width == 480 && facts.height == 270)

        let plain = Array(MediaBytes.gif(width: 480, height: 270, frames: 8, loops: nil, commentBytes: 70_000).prefix(64 << 10))
        let unknown = MediaSniffer.read(plain)
        #expect(unknown.frames == nil)
        #expect(unknown.animated == nil, "nothing in the bytes read says either way")
    }

    /// A whole one-frame GIF with a looping extension is a still: the frames read decide.
    @Test func aWholeOneFrameGIFWithALoopIsStill() {
        let facts = MediaSniffer.read(MediaBytes.gif(width: 64, height: 64, frames: 1, loops: 0))
        #expect(facts.animated == false && facts.frames == 1)
    }

    @Test func pngAndAPNG() {
        #expect(MediaSniffer.read(MediaBytes.png(width: 32, height: 16)) == MediaFacts(format: .png, width: 32, height: 16, animated: false, frames: 1))
        let animated = MediaSniffer.read(MediaBytes.png(width: 100, height: 50, frames: 4, delay: 25))
        #expect(animated == MediaFacts(format: .apng, width: 100, height: 50, animated: true, frames: 4, durationSeconds: 1.0, loopCount: 0))
    }

    @Test func webpStillAndAnimation() {
        let still = MediaSniffer.read(MediaBytes.webp(width: 300, height: 200, frames: nil))
        #expect(still == MediaFacts(format: .webp, width: 300, height: 200, animated: false, frames: 1))
        let animated = MediaSniffer.read(MediaBytes.webp(width: 320, height: 240, frames: 3, duration: 100, loops: 2))
        #expect(animated == MediaFacts(format: .webp, width: 320, height: 240, animated: true, frames: 3, durationSeconds: 0.3, loopCount: 2))
    }

    @Test func mp4WithItsMovieFirst() {
        let facts = MediaSniffer.read(MediaBytes.mp4(width: 640, height: 360, frames: 75, seconds: 3))
        #expect(facts == MediaFacts(format: .mp4, width: 640, height: 360, animated: true, frames: 75, durationSeconds: 3))
    }

    @Test func mp4WithItsMovieLastSaysOnlyWhatItIs() {
        // The first 1 KiB: the movie box is past it.
        let facts = MediaSniffer.read(Array(MediaBytes.mp4(width: 640, height: 360, frames: 75, seconds: 3, moovLast: true).prefix(1024)))
        #expect(facts == MediaFacts(format: .mp4))
    }

    @Test func webm() {
        let facts = MediaSniffer.read(MediaBytes.webm(width: 1280, height: 720, seconds: 4.5))
        #expect(facts == MediaFacts(format: .webm, width: 1280, height: 720, animated: true, durationSeconds: 4.5))
    }

    @Test func hlsMasterAndMediaPlaylists() {
        let master = """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2"
            360.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2400000,RESOLUTION=1280x720
            720.m3u8
            """
        let facts = MediaSniffer.read(Array(master.utf8))
        #expect(facts.format == .hls)
        #expect(facts.variants == [.init(width: 640, height: 360, bandwidth: 800_000), .init(width: 1280, height: 720, bandwidth: 2_400_000)])
        #expect(facts.width == nil, "a playlist has variants, not a size of its own")
        let media = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4.0,\na.ts\n#EXTINF:2.5,\nb.ts\n#EXT-X-ENDLIST\n"
        #expect(MediaSniffer.read(Array(media.utf8)).durationSeconds == 6.5)
        // A live playlist has no end: no running time.
        #expect(MediaSniffer.read(Array(media.replacingOccurrences(of: "#EXT-X-ENDLIST\n", with: "").utf8)).durationSeconds == nil)
    }

    @Test func dashManifest() {
        let mpd = """
            <?xml version="1.0"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" mediaPresentationDuration="PT1M2.5S" type="static">
              <Period><AdaptationSet mimeType="video/mp4">
                <Representation id="1" bandwidth="500000" width="480" height="270"/>
                <Representation id="2" bandwidth="1500000" width="1280" height="720"/>
              </AdaptationSet></Period>
            </MPD>
            """
        let facts = MediaSniffer.read(Array(mpd.utf8))
        #expect(facts.format == .dash)
        #expect(facts.durationSeconds == 62.5)
        #expect(facts.variants.count == 2)
        #expect(facts.width == nil, "a playlist has variants, not a size of its own")
    }

    @Test func anHTMLPageIsNoMedia() {
        #expect(MediaSniffer.read(Array("<!doctype html><title>Not found</title>".utf8)).format == .unknown)
        #expect(MediaSniffer.read([]).format == .unknown)
    }

    /// Every prefix of every sample: no crash, and whatever a prefix says, the whole file says
    /// too (sizes equal, frames no more, "animated" only if it is, a running time only if right).
    @Test(arguments: [
        ("hls", Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2400000,RESOLUTION=1280x720\n720.m3u8\n#EXTINF:4.0,\na.ts\n#EXT-X-ENDLIST\n".utf8)),
        ("dash", Array("<MPD mediaPresentationDuration=\"PT12.5S\"><Representation width=\"1280\" height=\"720\" bandwidth=\"10\"/></MPD>".utf8)),
        ("webp-still", MediaBytes.webp(width: 30, height: 20, frames: nil)),
        ("gif", MediaBytes.gif(width: 48, height: 32, frames: 3)),
        ("apng", MediaBytes.png(width: 20, height: 10, frames: 3)),
        ("webp", MediaBytes.webp(width: 30, height: 20, frames: 3)),
        ("mp4", MediaBytes.mp4(width: 160, height: 90, frames: 10, seconds: 2)),
        ("webm", MediaBytes.webm(width: 160, height: 90, seconds: 2)),
    ])
    func aCutFileNeverSaysSomethingWrong(name: String, bytes: [UInt8]) {
        let whole = MediaSniffer.read(bytes)
        for length in 0...bytes.count {
            let part = MediaSniffer.read(Array(bytes.prefix(length)))
            if part.format != .unknown { #expect(part.format == whole.format || (part.format == .png && whole.format == .apng), "\(name) at \(length)") }
            if let width = part.width { #expect(width == whole.width, "\(name) at \(length)") }
            if let height = part.height { #expect(height == whole.height, "\(name) at \(length)") }
            if let frames = part.frames, let all = whole.frames { #expect(frames <= all, "\(name) at \(length)") }
            if let animated = part.animated { #expect(animated == whole.animated, "\(name) at \(length)") }
            if let duration = part.durationSeconds { #expect(duration == whole.durationSeconds, "\(name) at \(length)") }
        }
    }

    /// Lengths that point far past the end, or wrap around, are the end of what is known.
    @Test func lengthFieldsAreNeverTrusted() {
        var mp4 = MediaBytes.mp4(width: 160, height: 90, frames: 10, seconds: 2)
        mp4.replaceSubrange(24..<28, with: [0xFF, 0xFF, 0xFF, 0xFF])  // moov's size
        _ = MediaSniffer.read(mp4)
        let hugeBox = MediaBytes.box("ftyp", []) + [0, 0, 0, 1] + Array("moov".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        _ = MediaSniffer.read(hugeBox)
        var webp = MediaBytes.webp(width: 30, height: 20, frames: 3)
        webp.replaceSubrange(16..<20, with: [0xFF, 0xFF, 0xFF, 0xFF])
        _ = MediaSniffer.read(webp)
        let webm: [UInt8] = [0x1A, 0x45, 0xDF, 0xA3, 0xFF] + [0x18, 0x53, 0x80, 0x67, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE]
        _ = MediaSniffer.read(webm)
    }
}
