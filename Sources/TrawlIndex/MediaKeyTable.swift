/// The media keys one search has met, each with a number of its own (a cell): a flat
/// open-addressing table sized for the considered matches. A search looks up every considered
/// match's key twice (counting, then ranking): with `Dictionary` and `Set`, whose SipHash runs
/// per lookup, that was ~0.3 ms of a 5 000-match search; the keys are hashes already
/// (``MediaKey``), so a multiply picks the slot.
struct MediaKeyTable {
    /// Never a key: keys are non-negative hashes or negated row ids (ids start at 1).
    private static let empty = Int64.min
    private var keys: [Int64]
    private(set) var values: [Int64]
    private let shift: UInt64
    private let mask: Int

    /// A table for up to `capacity` keys (kept at most two-thirds full: linear probing stays
    /// short, and 5 000 keys take 64 KiB a column, under the size at which `malloc` maps fresh
    /// pages for every search).
    init(capacity: Int) {
        var size = 16
        while size < capacity + capacity / 2 { size *= 2 }
        keys = Array(repeating: Self.empty, count: size)
        values = Array(repeating: 0, count: size)
        shift = UInt64(64 - size.trailingZeroBitCount)
        mask = size - 1
    }

    /// The slot of `key`, taken for it if it had none (`isNew`; its value is then 0).
    /// - Precondition: fewer keys than the capacity the table was made for.
    mutating func slot(for key: Int64) -> (index: Int, isNew: Bool) {
        // Fibonacci hashing: the top bits of the product, so negated ids (consecutive) spread too.
        var index = Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> shift)
        while true {
            let found = keys[index]
            if found == key { return (index, false) }
            if found == Self.empty {
                keys[index] = key
                return (index, true)
            }
            index = (index + 1) & mask
        }
    }

    /// Adds `key`. - Returns: whether it was new.
    mutating func insert(_ key: Int64) -> Bool {
        slot(for: key).isNew
    }

    mutating func setValue(_ value: Int64, at index: Int) {
        values[index] = value
    }

    /// Calls `body` with the value of every key in the table, in no order.
    func forEachValue(_ body: (Int64) -> Void) {
        for index in keys.indices where keys[index] != Self.empty { body(values[index]) }
    }
}
