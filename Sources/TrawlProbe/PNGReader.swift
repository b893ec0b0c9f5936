/// PNG and APNG: the size from `IHDR`; an `acTL` before the first `IDAT` makes it an animation
/// (its frame count and plays); frame delays from `fcTL` when every frame's is within the bytes.
enum PNGReader {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func read(_ bytes: [UInt8]) -> MediaFacts? {
        var reader = ByteReader(bytes)
        guard reader.starts(with: signature) else { return nil }
        reader.skip(8)
        var facts = MediaFacts(format: .png)
        var declaredFrames: Int?
        var controls = 0
        var delay = 0.0
        while let length = reader.be(4), let type = reader.take(4) {
            let bodyStart = reader.offset
            let type = String(decoding: type, as: UTF8.self)
            switch type {
            // The first of each chunk counts (a second IHDR or acTL is not PNG; it changes nothing).
            case "IHDR" where facts.width == nil:
                if let width = reader.be(4), let height = reader.be(4) {
                    facts.width = Int(width)
                    facts.height = Int(height)
                }
            case "acTL" where declaredFrames == nil:
                if let frames = reader.be(4), let plays = reader.be(4) {
                    declaredFrames = Int(frames)
                    facts.loopCount = Int(plays)
                    facts.format = .apng
                    facts.animated = frames > 1
                }
            case "fcTL":
                reader.skip(20)  // sequence, width, height, x, y
                if let numerator = reader.be(2), let denominator = reader.be(2) {
                    controls += 1
                    delay += Double(numerator) / Double(denominator == 0 ? 100 : denominator)
                }
            case "IDAT":
                if declaredFrames == nil {
                    facts.animated = false
                    facts.frames = 1
                    return facts
                }
            case "IEND":
                break
            default:
                break
            }
            // The chunk's body and CRC; a length past the end ends the walk.
            reader = ByteReader(bytes, offset: bodyStart)
            guard reader.skip(Int(min(length, UInt64(Int32.max)))), reader.skip(4) else { break }
            if type == "IEND" { break }
        }
        if let declaredFrames {
            facts.frames = controls
            if controls >= declaredFrames, declaredFrames > 1 { facts.durationSeconds = delay }
        }
        return facts
    }
}
