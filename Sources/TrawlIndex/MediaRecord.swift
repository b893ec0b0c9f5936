import Foundation
import TrawlCore

/// How the index stores a whole ``TrawlCore/Media`` (the `media.json` column): a compact binary
/// record, so that indexing does not run `JSONEncoder` per media (11% of the insert path's CPU)
/// and a row is about half the bytes.
///
/// The first byte says the format: ``format`` (1) for this record, `{` for the JSON that indexes
/// written before it hold; ``decode(_:)`` reads both, so old files need no migration.
///
/// Layout after the format byte: a varint of presence flags, then the fields in declaration
/// order (the source's running time last, after the probe), each string as a varint length and UTF-8 bytes, each integer as a zigzag varint, each
/// list as a varint count and its items. The highlight is never stored (each search makes its own).
enum MediaRecord {
    static let format: UInt8 = 1

    private struct Flags: OptionSet {
        let rawValue: UInt64
        static let width = Flags(rawValue: 1 << 0)
        static let height = Flags(rawValue: 1 << 1)
        static let byteSize = Flags(rawValue: 1 << 2)
        static let title = Flags(rawValue: 1 << 3)
        static let caption = Flags(rawValue: 1 << 4)
        static let tags = Flags(rawValue: 1 << 5)
        static let still = Flags(rawValue: 1 << 6)
        static let page = Flags(rawValue: 1 << 7)
        static let payloadURL = Flags(rawValue: 1 << 8)
        static let name = Flags(rawValue: 1 << 9)
        /// A ``TrawlCore/MediaProbe`` follows the rest (of the media, or of a rendition).
        static let probe = Flags(rawValue: 1 << 10)
        /// The source's running time, a double, last of all (records written before it lack it).
        static let duration = Flags(rawValue: 1 << 11)
    }

    /// Which of a probe's optional fields are present, and its two booleans.
    private struct ProbeFlags: OptionSet {
        let rawValue: UInt64
        static let contentType = ProbeFlags(rawValue: 1 << 0)
        static let bytes = ProbeFlags(rawValue: 1 << 1)
        static let format = ProbeFlags(rawValue: 1 << 2)
        static let animatedKnown = ProbeFlags(rawValue: 1 << 3)
        static let animated = ProbeFlags(rawValue: 1 << 4)
        static let frames = ProbeFlags(rawValue: 1 << 5)
        static let duration = ProbeFlags(rawValue: 1 << 6)
        static let width = ProbeFlags(rawValue: 1 << 7)
        static let height = ProbeFlags(rawValue: 1 << 8)
        static let dead = ProbeFlags(rawValue: 1 << 9)
        static let error = ProbeFlags(rawValue: 1 << 10)
    }

    /// The record of `media` (its highlight left out).
    static func encode(_ media: Media) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + media.url.utf8.count * 2 + (media.title?.utf8.count ?? 0) + media.renditions.count * 64)
        encode(media, into: &bytes)
        return bytes
    }

    /// Appends the record of `media` (its highlight left out) to `bytes`, with `defaultPage` as
    /// its page when it names none: the index's writer lays a whole group's records in one buffer
    /// (``PreparedGroup``), so a record costs no allocation and no copy of the media.
    static func encode(_ media: Media, defaultPage: String? = nil, into bytes: inout [UInt8]) {
        // Swapped in and out: the buffer is never copied.
        var writer = Writer()
        swap(&writer.bytes, &bytes)
        defer { swap(&writer.bytes, &bytes) }
        writer.bytes.append(format)
        let page = media.page ?? defaultPage
        var flags: Flags = []
        if media.width != nil { flags.insert(.width) }
        if media.height != nil { flags.insert(.height) }
        if media.byteSize != nil { flags.insert(.byteSize) }
        if media.title != nil { flags.insert(.title) }
        if media.caption != nil { flags.insert(.caption) }
        if media.tags != nil { flags.insert(.tags) }
        if media.still != nil { flags.insert(.still) }
        if page != nil { flags.insert(.page) }
        if media.provenance.payloadURL != nil { flags.insert(.payloadURL) }
        if media.probe != nil { flags.insert(.probe) }
        if media.durationSeconds != nil { flags.insert(.duration) }
        writer.varint(flags.rawValue)
        writer.string(media.url)
        writer.string(media.kind.rawValue)
        if let width = media.width { writer.int(width) }
        if let height = media.height { writer.int(height) }
        if let byteSize = media.byteSize { writer.int(byteSize) }
        if let title = media.title { writer.string(title) }
        if let caption = media.caption { writer.string(caption) }
        if let tags = media.tags {
            writer.varint(UInt64(tags.count))
            for tag in tags { writer.string(tag) }
        }
        if let still = media.still { writer.string(still) }
        if let page { writer.string(page) }
        writer.varint(UInt64(media.renditions.count))
        for rendition in media.renditions {
            var flags: Flags = []
            if rendition.width != nil { flags.insert(.width) }
            if rendition.height != nil { flags.insert(.height) }
            if rendition.byteSize != nil { flags.insert(.byteSize) }
            if rendition.name != nil { flags.insert(.name) }
            if rendition.probe != nil { flags.insert(.probe) }
            writer.varint(flags.rawValue)
            writer.string(rendition.url)
            writer.string(rendition.kind.rawValue)
            if let width = rendition.width { writer.int(width) }
            if let height = rendition.height { writer.int(height) }
            if let byteSize = rendition.byteSize { writer.int(byteSize) }
            if let name = rendition.name { writer.string(name) }
            if let probe = rendition.probe { writer.probe(probe) }
        }
        writer.string(media.provenance.parser)
        switch media.provenance.origin {
        case .document: writer.varint(0)
        case .embedded(let locator):
            writer.varint(1)
            writer.string(locator.kind.rawValue)
            writer.int(locator.scriptIndex)
            writer.varint(locator.name == nil ? 0 : 1)
            if let name = locator.name { writer.string(name) }
        case .followUp(let reason):
            writer.varint(2)
            writer.string(reason)
        case .browserXHR: writer.varint(3)
        case .domSnapshot: writer.varint(4)
        }
        if let payloadURL = media.provenance.payloadURL { writer.string(payloadURL) }
        if let probe = media.probe { writer.probe(probe) }
        if let seconds = media.durationSeconds { writer.double(seconds) }
    }

    /// The media a stored record (binary, or the JSON of older indexes) holds.
    /// - Throws: ``Malformed`` for bytes that are neither.
    static func decode(_ bytes: some Collection<UInt8>) throws -> Media {
        let bytes = Array(bytes)
        guard let first = bytes.first else { throw Malformed(reason: "an empty record") }
        if first == UInt8(ascii: "{") { return try JSONDecoder().decode(Media.self, from: Data(bytes)) }
        guard first == format else { throw Malformed(reason: "unknown record format \(first)") }
        var reader = Reader(bytes: bytes, offset: 1)
        let flags = Flags(rawValue: try reader.varint())
        let url = try reader.string()
        let kind = try reader.kind()
        var media = Media(url: url, kind: kind, provenance: Provenance(parser: "", origin: .document))
        if flags.contains(.width) { media.width = try reader.int() }
        if flags.contains(.height) { media.height = try reader.int() }
        if flags.contains(.byteSize) { media.byteSize = try reader.int() }
        if flags.contains(.title) { media.title = try reader.string() }
        if flags.contains(.caption) { media.caption = try reader.string() }
        if flags.contains(.tags) { media.tags = try (0..<reader.count()).map { _ in try reader.string() } }
        if flags.contains(.still) { media.still = try reader.string() }
        if flags.contains(.page) { media.page = try reader.string() }
        media.renditions = try (0..<reader.count()).map { _ in
            let flags = Flags(rawValue: try reader.varint())
            var rendition = Rendition(url: try reader.string(), kind: try reader.kind())
            if flags.contains(.width) { rendition.width = try reader.int() }
            if flags.contains(.height) { rendition.height = try reader.int() }
            if flags.contains(.byteSize) { rendition.byteSize = try reader.int() }
            if flags.contains(.name) { rendition.name = try reader.string() }
            if flags.contains(.probe) { rendition.probe = try reader.probe() }
            return rendition
        }
        let parser = try reader.string()
        let origin: PayloadOrigin
        switch try reader.varint() {
        case 0: origin = .document
        case 1:
            let kindName = try reader.string()
            guard let kind = EmbeddedLocator.Kind(rawValue: kindName) else { throw Malformed(reason: "unknown embedded kind '\(kindName)'") }
            let scriptIndex = try reader.int()
            let name = try reader.varint() == 0 ? nil : try reader.string()
            origin = .embedded(EmbeddedLocator(kind: kind, scriptIndex: scriptIndex, name: name))
        case 2: origin = .followUp(reason: try reader.string())
        case 3: origin = .browserXHR
        case 4: origin = .domSnapshot
        case let other: throw Malformed(reason: "unknown payload origin \(other)")
        }
        media.provenance = Provenance(parser: parser, origin: origin, payloadURL: flags.contains(.payloadURL) ? try reader.string() : nil)
        if flags.contains(.probe) { media.probe = try reader.probe() }
        if flags.contains(.duration) { media.durationSeconds = try reader.double() }
        guard reader.offset == bytes.count else { throw Malformed(reason: "\(bytes.count - reader.offset) bytes after the record") }
        return media
    }

    /// A stored record that cannot be read (a damaged row).
    struct Malformed: Error, CustomStringConvertible {
        var reason: String
        var description: String { "a stored media record is malformed: \(reason)" }
    }

    private struct Writer {
        var bytes: [UInt8] = []

        mutating func varint(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }

        /// Zigzag: small negative numbers stay short.
        mutating func int(_ value: Int) {
            let value = Int64(value)
            varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
        }

        mutating func string(_ value: String) {
            varint(UInt64(value.utf8.count))
            bytes.append(contentsOf: value.utf8)
        }

        /// A double as its 8 bytes, little-endian.
        mutating func double(_ value: Double) {
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        }

        /// A probe: its flags, its status, then the fields present in flag order, then when.
        mutating func probe(_ probe: MediaProbe) {
            var flags: ProbeFlags = []
            if probe.contentType != nil { flags.insert(.contentType) }
            if probe.bytes != nil { flags.insert(.bytes) }
            if probe.format != nil { flags.insert(.format) }
            if let animated = probe.animated { flags.insert(animated ? [.animatedKnown, .animated] : .animatedKnown) }
            if probe.frames != nil { flags.insert(.frames) }
            if probe.durationSeconds != nil { flags.insert(.duration) }
            if probe.width != nil { flags.insert(.width) }
            if probe.height != nil { flags.insert(.height) }
            if probe.dead { flags.insert(.dead) }
            if probe.error != nil { flags.insert(.error) }
            varint(flags.rawValue)
            int(probe.status)
            if let contentType = probe.contentType { string(contentType) }
            if let bytes = probe.bytes { int(bytes) }
            if let format = probe.format { string(format) }
            if let frames = probe.frames { int(frames) }
            if let seconds = probe.durationSeconds { double(seconds) }
            if let width = probe.width { int(width) }
            if let height = probe.height { int(height) }
            if let error = probe.error { string(error) }
            string(probe.checkedAt)
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset: Int

        mutating func varint() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard offset < bytes.count else { throw Malformed(reason: "cut short at byte \(offset)") }
                guard shift < 64 else { throw Malformed(reason: "a number longer than 64 bits at byte \(offset)") }
                let byte = bytes[offset]
                offset += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }

        mutating func int() throws -> Int {
            let raw = try varint()
            return Int(truncatingIfNeeded: Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1))))
        }

        /// A list's length, refused when it could not fit in what is left.
        mutating func count() throws -> Int {
            let count = try varint()
            guard count <= UInt64(bytes.count - offset) else { throw Malformed(reason: "a list of \(count) items in \(bytes.count - offset) bytes") }
            return Int(count)
        }

        mutating func string() throws -> String {
            let length = try varint()
            guard length <= UInt64(bytes.count - offset) else { throw Malformed(reason: "a string of \(length) bytes in \(bytes.count - offset)") }
            let end = offset + Int(length)
            defer { offset = end }
            return String(decoding: bytes[offset..<end], as: UTF8.self)
        }

        mutating func double() throws -> Double {
            guard bytes.count - offset >= 8 else { throw Malformed(reason: "a number cut short at byte \(offset)") }
            let bits = bytes[offset..<offset + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            offset += 8
            return Double(bitPattern: bits)
        }

        mutating func probe() throws -> MediaProbe {
            let flags = ProbeFlags(rawValue: try varint())
            var probe = MediaProbe(status: try int())
            if flags.contains(.contentType) { probe.contentType = try string() }
            if flags.contains(.bytes) { probe.bytes = try int() }
            if flags.contains(.format) { probe.format = try string() }
            if flags.contains(.animatedKnown) { probe.animated = flags.contains(.animated) }
            if flags.contains(.frames) { probe.frames = try int() }
            if flags.contains(.duration) { probe.durationSeconds = try double() }
            if flags.contains(.width) { probe.width = try int() }
            if flags.contains(.height) { probe.height = try int() }
            probe.dead = flags.contains(.dead)
            if flags.contains(.error) { probe.error = try string() }
            probe.checkedAt = try string()
            return probe
        }

        mutating func kind() throws -> MediaKind {
            let name = try string()
            guard let kind = MediaKind(rawValue: name) else { throw Malformed(reason: "unknown media kind '\(name)'") }
            return kind
        }
    }
}
