/// MP4 and QuickTime (ISO BMFF boxes): with `moov` among the bytes read, the running time from
/// `mvhd`, the video track's size from `tkhd` and its frame count from `stsz`. With `moov` at
/// the end of the file (after `mdat`) the bytes say nothing of these, and nothing is guessed.
enum MP4Reader {
    static let topLevelTypes: Set<String> = ["ftyp", "moov", "mdat", "free", "skip", "wide", "pnot", "styp"]

    static func read(_ bytes: [UInt8]) -> MediaFacts? {
        guard bytes.count >= 8, topLevelTypes.contains(String(decoding: bytes[4..<8], as: UTF8.self)) else { return nil }
        var facts = MediaFacts(format: .mp4)
        var reader = ByteReader(bytes)
        while let box = Box.next(&reader) {
            if box.type == "moov" {
                readMovie(bytes, box.body, into: &facts)
                return facts
            }
            guard box.isWhole else { break }
        }
        return facts
    }

    /// One box: its type and the range of its body within the bytes (cut at their end).
    struct Box {
        var type: String
        var body: Range<Int>
        /// The whole box is within the bytes.
        var isWhole: Bool

        /// The box at the reader, which moves past it (to the end when it runs past the bytes).
        static func next(_ reader: inout ByteReader, within end: Int? = nil) -> Box? {
            let limit = min(end ?? reader.bytes.count, reader.bytes.count)
            let start = reader.offset
            guard limit - start >= 8, let size32 = reader.be(4), let type = reader.take(4) else { return nil }
            var size = Int(size32)
            if size32 == 1 {
                guard let large = reader.be(8), large <= UInt64(Int.max) else { return nil }
                size = Int(large)
            } else if size32 == 0 {
                size = limit - start
            }
            let header = reader.offset - start
            guard size >= header else { return nil }
            let (stop, overflow) = start.addingReportingOverflow(size)
            let bodyStart = start + header
            let bodyEnd = max(bodyStart, overflow ? limit : min(stop, limit))
            reader = ByteReader(reader.bytes, offset: bodyEnd)
            return Box(type: String(decoding: type, as: UTF8.self), body: bodyStart..<bodyEnd, isWhole: !overflow && stop <= limit)
        }
    }

    private static func children(_ bytes: [UInt8], _ range: Range<Int>) -> [Box] {
        var reader = ByteReader(bytes, offset: range.lowerBound)
        var boxes: [Box] = []
        while reader.offset < range.upperBound, boxes.count < 4096, let box = Box.next(&reader, within: range.upperBound) {
            boxes.append(box)
        }
        return boxes
    }

    private static func readMovie(_ bytes: [UInt8], _ movie: Range<Int>, into facts: inout MediaFacts) {
        for box in children(bytes, movie) {
            switch box.type {
            case "mvhd":
                var reader = ByteReader(bytes, offset: box.body.lowerBound)
                guard let version = reader.u8(), reader.skip(3) else { continue }
                let timescale: UInt64?
                let duration: UInt64?
                if version == 1 {
                    reader.skip(16)
                    timescale = reader.be(4)
                    duration = reader.be(8)
                } else {
                    reader.skip(8)
                    timescale = reader.be(4)
                    duration = reader.be(4)
                }
                if let timescale, timescale > 0, let duration, reader.offset <= box.body.upperBound {
                    facts.durationSeconds = Double(duration) / Double(timescale)
                }
            case "trak":
                readTrack(bytes, box.body, into: &facts)
            default:
                break
            }
        }
        // Moving means a second frame; a running time alone may be one still held for seconds.
        if let frames = facts.frames { facts.animated = frames >= 2 }
    }

    /// A track counts when its handler is `vide`: its `tkhd` size and its sample count.
    private static func readTrack(_ bytes: [UInt8], _ track: Range<Int>, into facts: inout MediaFacts) {
        let boxes = children(bytes, track)
        guard let media = boxes.first(where: { $0.type == "mdia" }) else { return }
        let mediaBoxes = children(bytes, media.body)
        guard let handler = mediaBoxes.first(where: { $0.type == "hdlr" }) else { return }
        var reader = ByteReader(bytes, offset: handler.body.lowerBound + 8)
        guard let kind = reader.take(4), kind.elementsEqual(Array(ascii: "vide")), facts.width == nil else { return }
        if let header = boxes.first(where: { $0.type == "tkhd" }) {
            var reader = ByteReader(bytes, offset: header.body.lowerBound)
            if let version = reader.u8() {
                reader.skip(3 + (version == 1 ? 32 : 20) + 8 + 8 + 36)
                if let width = reader.be(4), let height = reader.be(4), reader.offset <= header.body.upperBound {
                    facts.width = Int(width >> 16)
                    facts.height = Int(height >> 16)
                }
            }
        }
        // mdia → minf → stbl → stsz: the track's sample (frame) count.
        guard let info = mediaBoxes.first(where: { $0.type == "minf" }),
            let table = children(bytes, info.body).first(where: { $0.type == "stbl" }),
            let sizes = children(bytes, table.body).first(where: { $0.type == "stsz" || $0.type == "stz2" })
        else { return }
        var sizeReader = ByteReader(bytes, offset: sizes.body.lowerBound + 8)
        if let count = sizeReader.be(4), sizeReader.offset <= sizes.body.upperBound { facts.frames = Int(count) }
    }
}
