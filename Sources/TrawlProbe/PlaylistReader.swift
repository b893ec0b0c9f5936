import Foundation

/// HLS (`#EXTM3U`) and DASH (`<MPD`) playlists, read as text: the variants' resolutions and
/// bandwidths (a playlist has no one size of its own: a cut one may not list its largest), and
/// the running time (an HLS media playlist's segments once `#EXT-X-ENDLIST`
/// closes it; a DASH `mediaPresentationDuration`).
package enum PlaylistReader {
    static func read(_ bytes: [UInt8]) -> MediaFacts? {
        let head = bytes.prefix(4096).drop { $0 == 0xEF || $0 == 0xBB || $0 == 0xBF || $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        if head.starts(with: Array(ascii: "#EXTM3U")) {
            // A line cut by the end of the bytes read is not read: `RESOLUTION=1280x72` is not 72.
            let whole = bytes.last == 0x0A ? bytes[...] : bytes[..<(bytes.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0)]
            return hls(String(decoding: whole, as: UTF8.self))
        }
        let text = String(decoding: bytes.prefix(1 << 20), as: UTF8.self)
        if text.prefix(4096).contains("<MPD") { return dash(text) }
        return nil
    }

    static func hls(_ text: String) -> MediaFacts {
        var facts = MediaFacts(format: .hls)
        var duration = 0.0
        var ended = false
        var segments = 0
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("#EXT-X-STREAM-INF:") {
                let attributes = Self.attributes(line.dropFirst("#EXT-X-STREAM-INF:".count))
                var variant = MediaFacts.Variant()
                if let resolution = attributes["RESOLUTION"] {
                    let parts = resolution.lowercased().split(separator: "x")
                    if parts.count == 2 {
                        variant.width = Int(parts[0])
                        variant.height = Int(parts[1])
                    }
                }
                variant.bandwidth = attributes["BANDWIDTH"].flatMap { Int($0) }
                facts.variants.append(variant)
            } else if line.hasPrefix("#EXTINF:") {
                let value = line.dropFirst("#EXTINF:".count).prefix { $0 != "," }
                if let seconds = Double(value.trimmingCharacters(in: .whitespaces)), seconds.isFinite, seconds >= 0 {
                    duration += seconds
                    segments += 1
                }
            } else if line.hasPrefix("#EXT-X-ENDLIST") {
                ended = true
            }
        }
        if ended, segments > 0 { facts.durationSeconds = duration }
        if segments > 0 { facts.animated = true }
        return facts
    }

    static func dash(_ text: String) -> MediaFacts {
        var facts = MediaFacts(format: .dash)
        if let value = attribute("mediaPresentationDuration", in: text[...]) { facts.durationSeconds = isoDuration(value) }
        var rest = text[...]
        while let range = rest.range(of: "<Representation") {
            let tag = rest[range.upperBound...].prefix { $0 != ">" }
            let width = attribute("width", in: tag).flatMap { Int($0) }
            let height = attribute("height", in: tag).flatMap { Int($0) }
            let bandwidth = attribute("bandwidth", in: tag).flatMap { Int($0) }
            if width != nil || height != nil { facts.variants.append(.init(width: width, height: height, bandwidth: bandwidth)) }
            rest = rest[range.upperBound...]
        }
        if let duration = facts.durationSeconds { facts.animated = duration > 0 }
        return facts
    }

    /// `NAME=value` and `NAME="quoted, value"` pairs of an HLS attribute list.
    static func attributes(_ text: Substring) -> [String: String] {
        var result: [String: String] = [:]
        var rest = text
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces)
            rest = rest[rest.index(after: equals)...]
            let value: Substring
            if rest.first == "\"" {
                let body = rest.dropFirst()
                let end = body.firstIndex(of: "\"") ?? body.endIndex
                value = body[..<end]
                rest = end < body.endIndex ? body[body.index(after: end)...] : body[end...]
                if rest.first == "," { rest = rest.dropFirst() }
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<end]
                rest = end < rest.endIndex ? rest[rest.index(after: end)...] : rest[end...]
            }
            if result[name] == nil { result[name] = String(value) }
        }
        return result
    }

    /// The value of `name="…"` in an XML tag's text.
    static func attribute(_ name: String, in text: Substring) -> String? {
        var rest = text
        while let range = rest.range(of: name + "=\"") {
            let before = rest[..<range.lowerBound].last
            // A value counts only with its closing quote: one cut by the end of the bytes is not read.
            if before == nil || before == " " || before == "\n" || before == "\t" || before == "\r" {
                let after = rest[range.upperBound...]
                guard let close = after.firstIndex(of: "\"") else { return nil }
                return String(after[..<close])
            }
            rest = rest[range.upperBound...]
        }
        return nil
    }

    /// `PT1H2M3.5S` (xs:duration, days and times only) in seconds; `nil` for anything else.
    /// A DASH manifest's `mediaPresentationDuration` says it, whether a probe or a site parser
    /// reads the manifest.
    package static func isoDuration(_ text: String) -> Double? {
        var seconds = 0.0
        var number = ""
        var inTime = false
        guard text.hasPrefix("P") else { return nil }
        for character in text.dropFirst() {
            switch character {
            case "T": inTime = true
            case "0"..."9", ".": number.append(character)
            case "D", "H", "M", "S":
                guard let value = Double(number) else { return nil }
                number = ""
                switch (character, inTime) {
                case ("D", false): seconds += value * 86400
                case ("H", true): seconds += value * 3600
                case ("M", true): seconds += value * 60
                case ("S", true): seconds += value
                default: return nil
                }
            default: return nil
            }
        }
        return number.isEmpty && seconds.isFinite ? seconds : nil
    }
}
