/// Media files written byte by byte as their specifications lay them out, small enough to read
/// in a test: GIF89a, PNG/APNG, WebP, ISO BMFF (MP4), WebM (EBML).
public enum MediaBytes {
    public static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
    public static func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    public static func be(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// A GIF of `frames` 1×1 frames on a `width`×`height` screen, each shown `delay` hundredths
    /// of a second; with a NETSCAPE2.0 block when `loops` is given; without its trailer when
    /// `trailer` is false.
    public static func gif(
        width: Int, height: Int, frames: Int, delay: Int = 10, loops: Int? = 0, trailer: Bool = true, commentBytes: Int = 0
    ) -> [UInt8] {
        var bytes = ascii("GIF89a") + le(width, 2) + le(height, 2) + [0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        if let loops { bytes += [0x21, 0xFF, 11] + ascii("NETSCAPE2.0") + [3, 1] + le(loops, 2) + [0] }
        if commentBytes > 0 {
            // A comment extension before the first frame, in sub-blocks of up to 255 bytes.
            bytes += [0x21, 0xFE]
            var left = commentBytes
            while left > 0 {
                let size = min(left, 255)
                bytes += [UInt8(size)] + [UInt8](repeating: UInt8(ascii: "c"), count: size)
                left -= size
            }
            bytes += [0]
        }
        for _ in 0..<frames {
            bytes += [0x21, 0xF9, 4, 0] + le(delay, 2) + [0, 0]
            bytes += [0x2C] + le(0, 2) + le(0, 2) + le(1, 2) + le(1, 2) + [0]
            bytes += [2, 2, 0x4C, 0x01, 0]  // LZW minimum code size 2, one sub-block, terminator
        }
        if trailer { bytes += [0x3B] }
        return bytes
    }

    public static func pngChunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        be(body.count, 4) + ascii(type) + body + [0, 0, 0, 0]  // the CRC is not checked
    }

    /// A PNG still, or an APNG of `frames` frames shown `delay` hundredths of a second each.
    public static func png(width: Int, height: Int, frames: Int? = nil, delay: Int = 10) -> [UInt8] {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += pngChunk("IHDR", be(width, 4) + be(height, 4) + [8, 6, 0, 0, 0])
        if let frames { bytes += pngChunk("acTL", be(frames, 4) + be(0, 4)) }
        for index in 0..<(frames ?? 0) {
            bytes += pngChunk("fcTL", be(index * 2, 4) + be(width, 4) + be(height, 4) + be(0, 4) + be(0, 4) + be(delay, 2) + be(100, 2) + [0, 0])
            bytes += pngChunk(index == 0 ? "IDAT" : "fdAT", [1, 2, 3])
        }
        if frames == nil { bytes += pngChunk("IDAT", [1, 2, 3]) }
        bytes += pngChunk("IEND", [])
        return bytes
    }

    public static func riffChunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        ascii(type) + le(body.count, 4) + body + (body.count % 2 == 1 ? [0] : [])
    }

    /// An animated WebP of `frames` frames of `duration` ms, or a lossless still.
    public static func webp(width: Int, height: Int, frames: Int?, duration: Int = 80, loops: Int = 0) -> [UInt8] {
        var body = ascii("WEBP")
        if let frames {
            body += riffChunk("VP8X", [0x02, 0, 0, 0] + le(width - 1, 3) + le(height - 1, 3))
            body += riffChunk("ANIM", [0, 0, 0, 0] + le(loops, 2))
            for _ in 0..<frames {
                body += riffChunk(
                    "ANMF", le(0, 3) + le(0, 3) + le(width - 1, 3) + le(height - 1, 3) + le(duration, 3) + [0] + riffChunk("VP8L", [0x2F, 0, 0, 0, 0]))
            }
        } else {
            let bits = (width - 1) | (height - 1) << 14
            body += riffChunk("VP8L", [0x2F] + le(bits, 4) + [0, 0, 0])
        }
        return ascii("RIFF") + le(body.count, 4) + body
    }

    public static func box(_ type: String, _ body: [UInt8]) -> [UInt8] { be(body.count + 8, 4) + ascii(type) + body }

    /// An MP4 whose video track is `width`×`height`, `frames` samples, `seconds` long; `moov`
    /// before `mdat` unless `moovLast`.
    public static func mp4(width: Int, height: Int, frames: Int, seconds: Int, moovLast: Bool = false) -> [UInt8] {
        let timescale = 1000
        let mvhd = box("mvhd", [0, 0, 0, 0] + be(0, 4) + be(0, 4) + be(timescale, 4) + be(seconds * timescale, 4) + [UInt8](repeating: 0, count: 80))
        let tkhd = box(
            "tkhd",
            [0, 0, 0, 3] + be(0, 4) + be(0, 4) + be(1, 4) + be(0, 4) + be(seconds * timescale, 4) + [UInt8](repeating: 0, count: 8)
                + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0, count: 36) + be(width << 16, 4) + be(height << 16, 4))
        let hdlr = box("hdlr", [0, 0, 0, 0] + be(0, 4) + ascii("vide") + [UInt8](repeating: 0, count: 12) + ascii("Video\0"))
        let stsz = box("stsz", [0, 0, 0, 0] + be(0, 4) + be(frames, 4) + (0..<frames).flatMap { _ in be(100, 4) })
        let mdia = box("mdia", hdlr + box("minf", box("stbl", stsz)))
        let sound = box(
            "trak",
            box("tkhd", [UInt8](repeating: 0, count: 84))
                + box("mdia", box("hdlr", [0, 0, 0, 0] + be(0, 4) + ascii("soun") + [UInt8](repeating: 0, count: 12))))
        let moov = box("moov", mvhd + sound + box("trak", tkhd + mdia))
        let ftyp = box("ftyp", ascii("isom") + be(512, 4) + ascii("isomiso2mp41"))
        let mdat = box("mdat", [UInt8](repeating: 0xAB, count: 2000))
        return moovLast ? ftyp + mdat + moov : ftyp + moov + mdat
    }

    public static func ebml(_ id: [UInt8], _ body: [UInt8]) -> [UInt8] {
        // Sizes as 8-byte variable-length integers (0x01 marker), as many muxers write them.
        id + [0x01] + be(body.count, 7) + body
    }

    /// A WebM of a `width`×`height` video track lasting `seconds`, then a cluster.
    public static func webm(width: Int, height: Int, seconds: Double) -> [UInt8] {
        let header = ebml([0x1A, 0x45, 0xDF, 0xA3], ebml([0x42, 0x82], ascii("webm")))
        let milliseconds = (seconds * 1000).bitPattern
        let info = ebml(
            [0x15, 0x49, 0xA9, 0x66], ebml([0x2A, 0xD7, 0xB1], be(1_000_000, 3)) + ebml([0x44, 0x89], be(Int(truncatingIfNeeded: milliseconds), 8)))
        let video = ebml([0xE0], ebml([0xB0], be(width, 2)) + ebml([0xBA], be(height, 2)))
        let audio = ebml([0xAE], ebml([0x83], [2]))
        let tracks = ebml([0x16, 0x54, 0xAE, 0x6B], audio + ebml([0xAE], ebml([0x83], [1]) + video))
        let cluster = ebml([0x1F, 0x43, 0xB6, 0x75], [UInt8](repeating: 0xA3, count: 64))
        // The segment's size is "unknown" (all ones), as a live muxer writes it.
        let segment = [0x18, 0x53, 0x80, 0x67, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] + info + tracks + cluster
        return header + segment
    }
}
