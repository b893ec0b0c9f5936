/// Eight bytes tested at once (SWAR), for the byte searches of the thinned feed. The trick:
/// `(x - 0x0101…) & ~x & 0x8080…` is non-zero exactly when some byte of `x` is zero (a
/// borrow may mark bytes above the first zero too, so it answers "whether", not "where").
enum ByteWord {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Non-zero exactly when some byte of `word` is zero.
    @inline(__always)
    static func zeroBytes(_ word: UInt64) -> UInt64 {
        (word &- ones) & ~word & highs
    }

    /// Whether some byte of `word` equals `byte`.
    @inline(__always)
    static func contains(_ word: UInt64, _ byte: UInt8) -> Bool {
        zeroBytes(word ^ (ones &* UInt64(byte))) != 0
    }

    /// Whether some byte of `word` is below 0x20 or above 0x7F.
    @inline(__always)
    static func hasControlOrNonASCII(_ word: UInt64) -> Bool {
        ((word &- ones &* 0x20) & ~word | word) & highs != 0
    }

    /// Whether some byte of `word` is above 0x7F.
    @inline(__always)
    static func hasNonASCII(_ word: UInt64) -> Bool {
        word & highs != 0
    }
}
