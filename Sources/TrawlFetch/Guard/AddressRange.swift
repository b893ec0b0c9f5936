/// A block of addresses in CIDR notation: `127.0.0.1/32`, `10.0.0.0/8`, `fd00::/8`.
///
/// What `--allow-address` opens. A bare address is the block of that one address.
public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    /// The first address of the block (host bits are zero).
    public let base: IPAddress
    /// Leading bits that every address in the block shares.
    public let prefixLength: Int

    /// - Precondition: `prefixLength` fits the address, and `base` has no bits set past it.
    init(_ base: IPAddress, _ prefixLength: Int) {
        precondition((0...base.bitWidth).contains(prefixLength))
        self.base = base
        self.prefixLength = prefixLength
        precondition(Self.masked(base, prefixLength) == base, "\(base)/\(prefixLength) has host bits set")
    }

    /// Reads `ADDRESS/BITS` or a bare `ADDRESS`.
    /// - Throws: ``AddressRangeError`` naming the text: not an address, a prefix out of range,
    ///   or bits set past the prefix (`10.0.0.1/8`: did you mean `10.0.0.0/8`?).
    public init(parsing text: String) throws(AddressRangeError) {
        let pieces = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(literal: String(pieces[0])) else {
            throw AddressRangeError(text: text, reason: "'\(pieces[0])' is not an IPv4 (a.b.c.d) or IPv6 address")
        }
        var length = address.bitWidth
        if pieces.count == 2 {
            guard pieces[1].allSatisfy({ $0.isASCII && $0.isNumber }), let bits = Int(pieces[1]), (0...address.bitWidth).contains(bits) else {
                throw AddressRangeError(text: text, reason: "the prefix length must be 0–\(address.bitWidth)")
            }
            length = bits
        }
        let base = Self.masked(address, length)
        guard base == address else {
            throw AddressRangeError(text: text, reason: "bits are set past the prefix (did you mean \(base)/\(length)?)")
        }
        self.init(base, length)
    }

    /// Whether `address` is in the block (an IPv4 address is never in an IPv6 block).
    public func contains(_ address: IPAddress) -> Bool {
        switch (address, base) {
        case (.v4, .v4), (.v6, .v6): Self.masked(address, prefixLength) == base
        default: false
        }
    }

    public var description: String { "\(base)/\(prefixLength)" }

    private static func masked(_ address: IPAddress, _ length: Int) -> IPAddress {
        switch address {
        case .v4(let value): .v4(length == 0 ? 0 : value & ~UInt32(0) << (32 - length))
        case .v6(let value): .v6(length == 0 ? 0 : value & ~UInt128(0) << (128 - length))
        }
    }
}

/// `--allow-address` text that is not a CIDR block.
public struct AddressRangeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text as given.
    public var text: String
    public var reason: String

    public var description: String { "'\(text)' is not a CIDR range: \(reason)" }
}
