/// GIF87a/GIF89a: the logical screen's size, the frames (image descriptors) within the bytes,
/// the NETSCAPE2.0 loop count, and — when the trailer is reached — the running time from the
/// frames' delays. A file cut before its first frame has unknown frames and unknown animation
/// (a looping extension does not prove a second frame: a whole one-frame GIF may carry one).
enum GIFReader {
    static func read(_ bytes: [UInt8]) -> MediaFacts? {
        var reader = ByteReader(bytes)
        guard reader.starts(with: Array(ascii: "GIF87a")) || reader.starts(with: Array(ascii: "GIF89a")) else { return nil }
        reader.skip(6)
        var facts = MediaFacts(format: .gif)
        guard let width = reader.le(2), let height = reader.le(2), let packed = reader.u8() else { return facts }
        facts.width = Int(width)
        facts.height = Int(height)
        reader.skip(2)  // background colour index, pixel aspect ratio
        if packed & 0x80 != 0 { reader.skip(3 << (Int(packed & 0x07) + 1)) }

        var frames = 0
        var delay = 0  // hundredths of a second, summed over graphic control extensions
        var complete = false
        blocks: while let introducer = reader.u8() {
            switch introducer {
            case 0x21:  // extension
                guard let label = reader.u8() else { break blocks }
                if label == 0xF9, reader.u8() == 4 {
                    reader.skip(1)
                    guard let centiseconds = reader.le(2) else { break blocks }
                    delay += Int(centiseconds)
                    reader.skip(1)
                } else if label == 0xFF, reader.u8() == 11, let identifier = reader.take(11) {
                    if identifier.elementsEqual(Array(ascii: "NETSCAPE2.0")) || identifier.elementsEqual(Array(ascii: "ANIMEXTS1.0")),
                        reader.u8() == 3, reader.u8() == 1, let loops = reader.le(2)
                    {
                        facts.loopCount = Int(loops)
                    }
                }
                guard skipSubBlocks(&reader) else { break blocks }
            case 0x2C:  // image descriptor: one frame
                reader.skip(8)
                guard let framePacked = reader.u8() else { break blocks }
                if framePacked & 0x80 != 0 { reader.skip(3 << (Int(framePacked & 0x07) + 1)) }
                reader.skip(1)  // LZW minimum code size
                guard skipSubBlocks(&reader) else {
                    // The frame started: it counts, even cut short.
                    frames += 1
                    break blocks
                }
                frames += 1
            case 0x3B:  // trailer
                complete = true
                break blocks
            default:
                // Not GIF block structure: stop reading, keep what was learnt.
                break blocks
            }
        }
        // Bytes that end before the first frame (a long comment or application block first) say
        // nothing of the frames: unknown, never 0.
        facts.frames = frames == 0 && !complete ? nil : frames
        if frames >= 2 {
            facts.animated = true
        } else if complete {
            facts.animated = false
        }
        if complete, frames >= 2 { facts.durationSeconds = Double(delay) / 100 }
        return facts
    }

    /// Skips data sub-blocks up to their terminator; `false` when the bytes end first.
    private static func skipSubBlocks(_ reader: inout ByteReader) -> Bool {
        while let size = reader.u8() {
            if size == 0 { return true }
            guard reader.skip(Int(size)) else { return false }
        }
        return false
    }
}
