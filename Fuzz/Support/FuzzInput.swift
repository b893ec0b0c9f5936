/// Reads a fuzz input front to back: parameter bytes first (what libFuzzer mutates along with
/// the rest), then the payload.
public struct FuzzInput {
    public let bytes: UnsafeBufferPointer<UInt8>
    public private(set) var offset = 0

    public init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = UnsafeBufferPointer(start: size > 0 ? data : nil, count: size)
    }

    /// The next byte, or 0 past the end.
    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// The next eight bytes as a number (missing bytes count as 0).
    public mutating func word() -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return value
    }

    /// Everything not read yet.
    public var rest: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[min(offset, bytes.count)...])
    }
}

/// A small deterministic generator (SplitMix64): chunk sizes from a seed the input carries.
public struct SplitMix64 {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A chunk size from 1 to 64 KiB, most of them small: a power of two picks the range, so
    /// one-byte pieces, pieces cutting tags and pieces spanning blocks all come up.
    public mutating func chunkSize() -> Int {
        let range = 1 << Int(next() % 17)
        return 1 + Int(next() % UInt64(range))
    }
}
