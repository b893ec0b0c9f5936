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
        var first = true
        while reader.offset + 8 <= end, let type = reader.take(4), let size = reader.le(4) {
            let bodyStart = reader.offset
            let type = String(decoding: type, as: UTF8.self)
            switch type {
            case "VP8X" where first:
                guard let flags = reader.u8() else { break }
                sawAnimationFlag = flags & 0x02 != 0
                reader.skip(3)
                if let width = reader.le(3), let height = reader.le(3) {
                    facts.width = Int(width) + 1
                    facts.height = Int(height) + 1
                }
                // An extended still (alpha, a colour profile): no animation can follow.
                if !sawAnimationFlag {
                    facts.animated = false
                    facts.frames = 1
                    return facts
                }
            case "ANIM":
                reader.skip(4)  // background colour
                if facts.loopCount == nil, let loops = reader.le(2) { facts.loopCount = Int(loops) }
            case "ANMF":
                reader.skip(12)  // x, y, width - 1, height - 1
                if let frameDuration = reader.le(3) {
                    frames += 1
                    duration += Int(frameDuration)
                }
            case "VP8 " where first:
                // A simple lossy file is this one chunk, a still: frame tag (3), start code (3),
                // then 14-bit width and height.
                if reader.skip(3), reader.starts(with: [0x9D, 0x01, 0x2A]), reader.skip(3), let width = reader.le(2), let height = reader.le(2) {
                    facts.width = Int(width & 0x3FFF)
                    facts.height = Int(height & 0x3FFF)
                }
                facts.animated = false
                facts.frames = 1
                return facts
            case "VP8L" where first:
                // A simple lossless file, a still: signature 0x2F, then 14 bits each of width - 1
                // and height - 1.
                if reader.u8() == 0x2F, let bits = reader.le(4) {
                    facts.width = Int(bits & 0x3FFF) + 1
                    facts.height = Int(bits >> 14 & 0x3FFF) + 1
                }
                facts.animated = false
                facts.frames = 1
                return facts
            default:
                break
            }
            first = false
            // Chunks are padded to an even size; a size past the end ends the walk.
            reader = ByteReader(bytes, offset: bodyStart)
            let padded = Int(min(size, UInt64(Int32.max))) + Int(size & 1)
            guard reader.skip(padded) else { break }
        }
        facts.frames = frames
        if frames >= 2 {
            facts.animated = true
        } else if sawAnimationFlag, complete {
            // The whole file, flagged as an animation, with one frame: it does not move.
            facts.animated = false
        }
        if sawAnimationFlag, complete, frames >= 2 { facts.durationSeconds = Double(duration) / 1000 }
        return facts
    }
}
