/// A cursor over bytes that never reads past their end: every read returns `nil` (and leaves
/// the cursor where it was) when the bytes run out. The readers trust no length field: a length
/// that points past the end is just the end of what is known.
struct ByteReader {
    let bytes: [UInt8]
    private(set) var offset: Int

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = min(max(0, offset), bytes.count)
    }

    var remaining: Int { bytes.count - offset }
    var isAtEnd: Bool { offset >= bytes.count }

    mutating func u8() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Little-endian unsigned integer of `count` bytes (at most 8).
    mutating func le(_ count: Int) -> UInt64? {
        guard count <= 8, let slice = take(count) else { return nil }
        return slice.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Big-endian unsigned integer of `count` bytes (at most 8).
    mutating func be(_ count: Int) -> UInt64? {
        guard count <= 8, let slice = take(count) else { return nil }
        return slice.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The next `count` bytes, or `nil` when fewer are left.
    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= remaining else { return nil }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// Moves on by `count` bytes; `false` (and at the end) when fewer are left.
    @discardableResult
    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= remaining else {
            offset = bytes.count
            return false
        }
        offset += count
        return true
    }

    /// Whether the bytes at the cursor are `prefix` (the cursor does not move).
    func starts(with prefix: [UInt8]) -> Bool {
        remaining >= prefix.count && bytes[offset..<offset + prefix.count].elementsEqual(prefix)
    }
}

extension Array where Element == UInt8 {
    init(ascii text: StaticString) {
        self = text.withUTF8Buffer { Array($0) }
    }
}
