/// WebM and Matroska (EBML): the running time from `Info`'s `Duration` and `TimecodeScale`, the
/// video track's `PixelWidth` and `PixelHeight`. The walk stops at the first `Cluster` (the
/// frames themselves) or at the end of the bytes read.
enum WebMReader {
    private enum ID {
        static let ebml: UInt64 = 0x1A45_DFA3
        static let segment: UInt64 = 0x1853_8067
        static let info: UInt64 = 0x1549_A966
        static let timecodeScale: UInt64 = 0x2A_D7B1
        static let duration: UInt64 = 0x4489
        static let tracks: UInt64 = 0x1654_AE6B
        static let trackEntry: UInt64 = 0xAE
        static let trackType: UInt64 = 0x83
        static let video: UInt64 = 0xE0
        static let pixelWidth: UInt64 = 0xB0
        static let pixelHeight: UInt64 = 0xBA
        static let cluster: UInt64 = 0x1F43_B675
    }

    static func read(_ bytes: [UInt8]) -> MediaFacts? {
        guard bytes.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) else { return nil }
        var facts = MediaFacts(format: .webm)
        var reader = ByteReader(bytes)
        guard let header = element(&reader, within: bytes.count), header.id == ID.ebml else { return facts }
        reader = ByteReader(bytes, offset: header.body.upperBound)
        guard let segment = element(&reader, within: bytes.count), segment.id == ID.segment else { return facts }
        var scale = 1_000_000.0  // nanoseconds per tick, Matroska's default
        var duration: Double?
        var videoSeen = false
        var cursor = ByteReader(bytes, offset: segment.body.lowerBound)
        var seen = 0
        walk: while cursor.offset < segment.body.upperBound, seen < 4096, let child = element(&cursor, within: segment.body.upperBound) {
            seen += 1
            switch child.id {
            case ID.info where duration == nil:
                var scaleSeen = false
                var infoDuration: Double?
                for field in children(bytes, child.body) where field.isWhole {
                    // The first of each counts: a later copy in a damaged file changes nothing.
                    if field.id == ID.timecodeScale, !scaleSeen, let value = unsigned(bytes, field.body), value > 0 {
                        scale = Double(value)
                        scaleSeen = true
                    }
                    if field.id == ID.duration, infoDuration == nil { infoDuration = float(bytes, field.body) }
                }
                // A cut Info may hide a TimecodeScale after the Duration: then the default
                // scale is a guess, and no running time is given.
                if duration == nil, child.isWhole || scaleSeen { duration = infoDuration }
            case ID.tracks where !videoSeen:
                // The first video track's size (a later track changes nothing).
                for entry in children(bytes, child.body) where entry.id == ID.trackEntry && !videoSeen {
                    let fields = children(bytes, entry.body)
                    guard let type = fields.first(where: { $0.id == ID.trackType && $0.isWhole }).flatMap({ unsigned(bytes, $0.body) }), type == 1,
                        let video = fields.first(where: { $0.id == ID.video })
                    else { continue }
                    videoSeen = true
                    let sizes = children(bytes, video.body).filter(\.isWhole)
                    facts.width = sizes.first(where: { $0.id == ID.pixelWidth }).flatMap { unsigned(bytes, $0.body) }.map { Int(clamping: $0) }
                    facts.height = sizes.first(where: { $0.id == ID.pixelHeight }).flatMap { unsigned(bytes, $0.body) }.map { Int(clamping: $0) }
                }
            case ID.cluster:
                break walk
            default:
                break
            }
        }
        if let duration, duration.isFinite, duration >= 0 {
            facts.durationSeconds = duration * scale / 1e9
            facts.animated = facts.durationSeconds.map { $0 > 0 }
        }
        return facts
    }

    struct Element {
        var id: UInt64
        var body: Range<Int>
        /// The whole body is within the bytes (and within its parent): only then is a value read.
        var isWhole: Bool
    }

    /// The element at the reader (its body cut at `end`); the reader moves past it. An unknown
    /// size (all ones) runs to `end`.
    static func element(_ reader: inout ByteReader, within end: Int) -> Element? {
        guard let id = variableInteger(&reader, keepMarker: true), let size = variableInteger(&reader, keepMarker: false) else { return nil }
        let start = reader.offset
        let limit = min(end, reader.bytes.count)
        guard start <= limit else { return nil }
        let stop: Int
        let isWhole: Bool
        if size.unknown || size.value > UInt64(limit - start) {
            stop = limit
            isWhole = false
        } else {
            stop = start + Int(size.value)
            isWhole = true
        }
        reader = ByteReader(reader.bytes, offset: stop)
        return Element(id: id.value, body: start..<stop, isWhole: isWhole)
    }

    /// An EBML variable-length integer: the leading zeros of the first byte say how many bytes
    /// follow. IDs keep their length marker; sizes drop it, and all ones means unknown.
    static func variableInteger(_ reader: inout ByteReader, keepMarker: Bool) -> (value: UInt64, unknown: Bool)? {
        guard let first = reader.u8(), first != 0 else { return nil }
        let length = first.leadingZeroBitCount + 1
        guard length <= 8 else { return nil }
        var value = UInt64(keepMarker ? first : first & (0xFF >> length))
        var allOnes = value == UInt64(0xFF >> length)
        for _ in 1..<length {
            guard let byte = reader.u8() else { return nil }
            value = value << 8 | UInt64(byte)
            allOnes = allOnes && byte == 0xFF
        }
        return (value, !keepMarker && allOnes)
    }

    private static func children(_ bytes: [UInt8], _ range: Range<Int>) -> [Element] {
        var reader = ByteReader(bytes, offset: range.lowerBound)
        var elements: [Element] = []
        while reader.offset < range.upperBound, elements.count < 4096, let element = element(&reader, within: range.upperBound) {
            elements.append(element)
        }
        return elements
    }

    private static func unsigned(_ bytes: [UInt8], _ range: Range<Int>) -> UInt64? {
        guard (1...8).contains(range.count) else { return nil }
        return bytes[range].reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func float(_ bytes: [UInt8], _ range: Range<Int>) -> Double? {
        guard let bits = unsigned(bytes, range) else { return nil }
        switch range.count {
        case 4: return Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits)))
        case 8: return Double(bitPattern: bits)
        default: return nil
        }
    }
}
