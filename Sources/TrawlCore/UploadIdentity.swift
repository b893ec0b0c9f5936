/// What identifies one upload across the files a site makes of it: the distinctive names in
/// its URLs' paths, scoped to the site's domain.
///
/// A site serves one upload under many URLs — sizes, formats, crops, hosts:
/// `i.redditmedia.com/HASH.gif?w=108&fm=jpg`, `g.redditmedia.com/HASH.gif?fm=mp4`,
/// `bp.blogspot.com/-AbC/…/s640/name.gif` and `…/s1600/name.gif`, `media.giphy.com/media/ID/200w.mp4`
/// and `…/ID/giphy.gif`. Two sightings whose URLs share an identity token are one media in two
/// files, not two media. A token is a file stem or a folder name (one of the four nearest the
/// file, without a dot) that no two uploads would share by chance: letters and digits mixed, or a long run of
/// digits, 6 to 64 characters; sizes (`640x480`, `w1200-h630`) and words never count.
public enum UploadIdentity {
    /// The identity tokens of `url` (`domain|token`), empty when its path names nothing
    /// distinctive.
    public static func tokens(of url: String) -> [String] {
        let utf8 = url.utf8
        guard let schemeEnd = url.firstRange(ofASCII: "://") else { return [] }
        let hostEnd = url.utf8Index(from: schemeEnd.upperBound, to: URLByte.endsHost)
        let domain = siteDomain(of: url[schemeEnd.upperBound..<hostEnd].lowercased())
        guard !domain.isEmpty, utf8.count < 4096 else { return [] }
        let pathEnd = url.utf8Index(from: hostEnd, to: URLByte.endsPath)
        let segments = url[hostEnd..<pathEnd].utf8.split(separator: URLByte.slash).map { url[$0.startIndex..<$0.endIndex] }
        guard let last = segments.last else { return [] }
        var tokens: [String] = []
        var stem = last
        if let dot = stem.utf8.lastIndex(of: UInt8(ascii: ".")), stem.distance(from: dot, to: stem.endIndex) <= 6 { stem = stem[..<dot] }
        let stemName = withoutSizeSuffix(stem)
        if isDistinctive(Substring(stemName)) { tokens.append(domain + "|" + stemName) }
        // A folder with a dot is a version or tracking tag (Giphy's `v1.<cid>` is the same for
        // every result of one search), not an upload's name.
        for folder in segments.dropLast().suffix(4) where !folder.contains(".") && isDistinctive(Substring(folder)) {
            tokens.append(domain + "|" + folder)
        }
        return tokens
    }

    /// The registrable part of a host, roughly: its last two labels, or three under a short
    /// second-level label (`co.uk`, `com.au`).
    static func siteDomain(of host: String) -> String {
        let host = host.split(separator: ":").first.map(String.init) ?? host
        let labels = host.split(separator: ".")
        guard labels.count >= 2 else { return host }
        let keep = labels.count >= 3 && labels[labels.count - 2].count <= 3 && labels.last!.count == 2 ? 3 : 2
        return labels.suffix(keep).joined(separator: ".")
    }

    /// `name-640x480` → `name`: WordPress and other CMSs name resizes by their size.
    static func withoutSizeSuffix(_ stem: Substring) -> String {
        guard let dash = stem.utf8.lastIndex(where: { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }) else { return String(stem) }
        let tail = stem[stem.utf8.index(after: dash)...]
        return isSize(tail) ? String(stem[..<dash]) : String(stem)
    }

    /// Whether a name could only belong to one upload.
    static func isDistinctive(_ name: Substring) -> Bool {
        guard name.utf8.count >= 6, name.utf8.count <= 64 else { return false }
        // Any part of it will do: `LiveLeak-dot-com-08b_1499296574-NMHH8690` has several.
        let separators: [UInt8] = Array("-_.~,".utf8)
        for part in name.utf8.split(whereSeparator: separators.contains) {
            if isDistinctivePart(name[part.startIndex..<part.endIndex]) { return true }
        }
        return false
    }

    static func isDistinctivePart(_ part: Substring) -> Bool {
        let count = part.utf8.count
        guard count >= 6, !isSize(part) else { return false }
        var digits = 0, letters = 0, other = 0
        for byte in part.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): letters += 1
            default: other += 1
            }
        }
        guard other == 0 else { return false }
        if letters == 0 { return digits >= 10 }  // an id or a millisecond timestamp, not a year
        // Generated ids switch between digits, upper and lower case often (`yjP1v4B`,
        // `OpesLQSjwdGj6`, `chCZZinlUTg`); words with a number (`image2016`, `IMG4512`) and
        // camel-case words (`MyHolidayPhoto`) do not, or never put two capitals together.
        var runs = 0
        var previous = -1
        var upperPair = false
        var previousUpper = false
        for byte in part.utf8 {
            let isUpper = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
            let kind = byte <= UInt8(ascii: "9") ? 0 : isUpper ? 1 : 2
            if kind != previous { runs += 1 }
            upperPair = upperPair || (isUpper && previousUpper)
            previous = kind
            previousUpper = isUpper
        }
        return runs >= 4 && (digits > 0 || upperPair)
    }

    /// `640x480`, `w1200`, `h630`, `s1600`, `200w`, `720p`: a size, not a name.
    static func isSize(_ part: Substring) -> Bool {
        // Printable ASCII (nearly every URL) is read by byte; anything else by `Character`, where
        // `isNumber` and `isLetter` take in other scripts' digits and letters too.
        guard part.isPrintableASCII else { return isSize(characters: part) }
        let bytes = part.utf8
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
        let pieces = bytes.split { $0 | 0x20 == UInt8(ascii: "x") }
        if pieces.count == 2, pieces.allSatisfy({ $0.allSatisfy(isDigit) }) { return true }
        let letters = bytes.count(where: isLetter)
        return letters == 1 && bytes.count(where: isDigit) == bytes.count - 1 && (isLetter(bytes.first!) || isLetter(bytes.last!))
    }

    private static func isSize(characters part: Substring) -> Bool {
        let lower = part.lowercased()
        let pieces = lower.split(separator: "x")
        if pieces.count == 2, pieces.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }) { return true }
        let letters = lower.filter(\.isLetter)
        let digits = lower.filter(\.isNumber)
        return letters.count == 1 && digits.count == lower.count - 1 && (lower.first!.isLetter || lower.last!.isLetter)
    }
}
