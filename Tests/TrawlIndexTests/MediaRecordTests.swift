import Foundation
import Testing
import TrawlCore

@testable import TrawlIndex

/// The binary record the index stores each media as, and the JSON older indexes hold.
@Suite("Stored media records")
struct MediaRecordTests {
    static let full: Media = {
        var media = Media(
            url: "https://media.giphy.com/media/x/giphy.gif", kind: .gif, width: 480, height: -1, byteSize: 3_406_796,
            title: "Cat — typing \u{1F431}", still: "https://media.giphy.com/media/x/480w_s.jpg",
            renditions: [
                Rendition(url: "https://media.giphy.com/media/x/giphy.mp4", kind: .mp4, width: 480, height: 270, byteSize: 90_000, name: "original"),
                Rendition(url: "https://media.giphy.com/media/x/200.webp", kind: .webp),
            ],
            page: "https://giphy.com/gifs/x",
            provenance: Provenance(
                parser: "giphy-page", origin: .embedded(EmbeddedLocator(kind: .nextData, scriptIndex: 7, name: "__NEXT_DATA__")),
                payloadURL: "https://giphy.com/gifs/x"),
            caption: "a cat typing", tags: ["cat", "typing", ""])
        media.highlight = "<mark>Cat</mark>"
        media.durationSeconds = 8.4
        return media
    }()

    @Test("Every field comes back as it went in, but the highlight (each search makes its own)")
    func roundTrip() throws {
        var expected = Self.full
        expected.highlight = nil
        #expect(try MediaRecord.decode(MediaRecord.encode(Self.full)) == expected)
        let bare = Media(url: "u", kind: .video, provenance: Provenance(parser: "p", origin: .document))
        #expect(try MediaRecord.decode(MediaRecord.encode(bare)) == bare)
        for origin: PayloadOrigin in [
            .document, .followUp(reason: "oembed"), .browserXHR, .domSnapshot,
            .embedded(EmbeddedLocator(kind: .assignment, scriptIndex: 0)),
        ] {
            var media = bare
            media.provenance.origin = origin
            #expect(try MediaRecord.decode(MediaRecord.encode(media)) == media)
        }
    }

    @Test("A probe comes back as it went in, on the media and on a rendition")
    func probeRoundTrip() throws {
        var media = Self.full
        media.highlight = nil
        media.probe = MediaProbe(
            status: 206, contentType: "image/gif", bytes: 3_406_796, format: "gif", animated: true, frames: 12, durationSeconds: 0.6,
            width: 480, height: 270)
        media.renditions[0].probe = MediaProbe(status: 404, dead: true)
        media.renditions[1].probe = MediaProbe(status: 0, animated: false, error: "timed-out")
        #expect(try MediaRecord.decode(MediaRecord.encode(media)) == media)
        // The site's duration and the probe's are two values, both kept.
        #expect(try MediaRecord.decode(MediaRecord.encode(media)).durationSeconds == 8.4)
        // A record cut inside its probe is malformed, not a media without one.
        let bytes = MediaRecord.encode(media)
        #expect(throws: (any Error).self) { try MediaRecord.decode(bytes.dropLast(3)) }
    }

    @Test("The record is smaller than the JSON it replaces")
    func smallerThanJSON() throws {
        let json = try JSONEncoder().encode(Self.full)
        #expect(MediaRecord.encode(Self.full).count * 2 < json.count)
    }

    @Test("JSON rows of older indexes still read")
    func readsJSON() throws {
        var expected = Self.full
        expected.highlight = nil
        #expect(try MediaRecord.decode(JSONEncoder().encode(expected)) == expected)
    }

    @Test("Damaged records throw, naming what is wrong, never crash")
    func damaged() {
        let record = MediaRecord.encode(Self.full)
        #expect(throws: MediaRecord.Malformed.self) { try MediaRecord.decode([UInt8]()) }
        #expect(throws: MediaRecord.Malformed.self) { try MediaRecord.decode([UInt8(9)] + record.dropFirst()) }
        #expect(throws: MediaRecord.Malformed.self) { try MediaRecord.decode(record + [0]) }
        // Every prefix of a record is refused (cut short, or a length that overruns the rest).
        for length in 1..<record.count {
            #expect(throws: (any Error).self) { try MediaRecord.decode(record.prefix(length)) }
        }
        // A huge length does not allocate or read past the end.
        #expect(throws: MediaRecord.Malformed.self) { try MediaRecord.decode([1, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]) }
    }
}
