/// WebP (RIFF): the canvas size from `VP8X` (or a still's `VP8 `/`VP8L` frame header); the
/// animation flag, the `ANIM` loop count and the `ANMF` frames with their durations.
enum WebPReader {
    static func read(_ bytes: [UInt8]) -> MediaFacts? {
        var reader = ByteReader(bytes)
        guard reader.starts(with: Array(ascii: "RIFF")) else { return nil }
        reader.skip(4)
        // The RIFF size says where the file ends: whether the bytes read are all of it, and
        // where the chunks stop (anything after is not part of the image).
        let declared = reader.le(4).map { 8 + Int($0) }
        let complete = declared.map { bytes.count >= $0 } ?? false
        let end = min(bytes.count, declared ?? bytes.count)
        guard reader.starts(with: Array(ascii: "WEBP")) else { return nil }
        reader.skip(4)
        var facts = MediaFacts(format: .webp)
        var frames = 0
        var duration = 0
        var sawAnimationFlag = false
        while reader.offset + 8 <= end, let type = reader.take(4), let size = reader.le(4) {
            let bodyStart = reader.offset
            switch String(decoding: type, as: UTF8.self) {
            case "VP8X":
                if let flags = reader.u8() {
                    sawAnimationFlag = flags & 0x02 != 0
                    facts.animated = sawAnimationFlag ? nil : false
                    reader.skip(3)
                    if let width = reader.le(3), let height = reader.le(3) {
                        facts.width = Int(width) + 1
                        facts.height = Int(height) + 1
                    }
                }
            case "ANIM":
                reader.skip(4)  // background colour
                if let loops = reader.le(2) { facts.loopCount = Int(loops) }
            case "ANMF":
                reader.skip(12)  // x, y, width - 1, height - 1
                if let frameDuration = reader.le(3) {
                    frames += 1
                    duration += Int(frameDuration)
                }
            case "VP8 ":
                // A lossy still: frame tag (3), start code (3), then 14-bit width and height.
                if facts.width == nil, reader.skip(3), reader.starts(with: [0x9D, 0x01, 0x2A]), reader.skip(3),
                    let width = reader.le(2), let height = reader.le(2)
                {
                    facts.width = Int(width & 0x3FFF)
                    facts.height = Int(height & 0x3FFF)
                }
                if !sawAnimationFlag { frames = max(frames, 1) }
            case "VP8L":
                // A lossless still: signature 0x2F, then 14 bits of width - 1 and of height - 1.
                if facts.width == nil, reader.u8() == 0x2F, let bits = reader.le(4) {
                    facts.width = Int(bits & 0x3FFF) + 1
                    facts.height = Int(bits >> 14 & 0x3FFF) + 1
                }
                if !sawAnimationFlag { frames = max(frames, 1) }
            default:
                break
            }
            // Chunks are padded to an even size; a size past the end ends the walk.
            reader = ByteReader(bytes, offset: bodyStart)
            let padded = Int(min(size, UInt64(Int32.max))) + Int(size & 1)
            guard reader.skip(padded) else { break }
        }
        facts.frames = frames
        if frames >= 2 {
            facts.animated = true
        } else if !sawAnimationFlag, frames == 1 {
            facts.animated = false
        } else if sawAnimationFlag, complete {
            // The whole file, flagged as an animation, with one frame: it does not move.
            facts.animated = frames >= 2
        }
        if sawAnimationFlag, complete, frames >= 2 { facts.durationSeconds = Double(duration) / 1000 }
        return facts
    }
}
