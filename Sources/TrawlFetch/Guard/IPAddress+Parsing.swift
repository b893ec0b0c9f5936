import Glibc

extension IPAddress {
    /// A strict address: four decimal parts (`192.168.0.1`) or IPv6 text (`fe80::1`,
    /// `::ffff:10.0.0.1`). For ranges a person writes (`--allow-address`), where `0x7f.1` would
    /// more likely be a mistake than a wish.
    package init?(literal text: String) {
        if let value = Self.dottedQuad(text) {
            self = .v4(value)
        } else if let address = Self.v6(text) {
            self = address
        } else {
            return nil
        }
    }

    /// The address a URL's host names, read the way libcurl reads it, or `nil` when the host
    /// is a name to look up.
    ///
    /// IPv4 in every form `inet_aton` and libcurl's URL parser accept: one to four parts, each
    /// decimal, octal (a leading `0`) or hex (`0x`), the last part filling the remaining bytes
    /// (`2130706433`, `0x7f000001`, `0177.0.0.1`, `127.1`, `0x7f.1`). IPv6 with or without
    /// brackets, with a zone (`%eth0`, or `%25eth0` as it appears in a URL). One trailing dot
    /// (`127.0.0.1.`) is ignored, as a resolver ignores it.
    package init?(host: String) {
        var text = Substring(host)
        let bracketed = text.hasPrefix("[") && text.hasSuffix("]")
        if bracketed {
            // Brackets hold IPv6 only: `[127.0.0.1]` is no address (libcurl refuses the URL).
            text = text.dropFirst().dropLast()
        } else if text.hasSuffix("."), !text.hasSuffix("..") {
            text = text.dropLast()
        }
        guard !text.isEmpty else { return nil }
        if !bracketed, let value = Self.inetAton(text) {
            self = .v4(value)
        } else if text.contains(":"), let address = Self.v6(String(text.prefix { $0 != "%" })) {
            // A zone (`fe80::1%eth0`) picks an interface, not another address.
            self = address
        } else {
            return nil
        }
    }

    /// `inet_aton`'s reading, as libcurl's `ipv4_normalize` does it: each part starts with a
    /// digit; a part that overflows, or a character no base allows, makes the host a name.
    static func inetAton(_ text: Substring) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var values: [UInt64] = []
        for part in parts {
            guard let value = number(part) else { return nil }
            values.append(value)
        }
        // The last part fills the bytes the others leave: a, a.b (8.24), a.b.c (8.8.16), a.b.c.d.
        let lastBits = 32 - 8 * (values.count - 1)
        guard values.dropLast().allSatisfy({ $0 <= 0xff }), values.last! < (UInt64(1) << lastBits) else { return nil }
        var address: UInt64 = 0
        for (index, value) in values.dropLast().enumerated() { address |= value << (24 - 8 * index) }
        return UInt32(address | values.last!)
    }

    /// One part as `strtoul(…, 0)` reads it, or `nil` unless the whole part is one number
    /// that fits in 32 bits.
    private static func number(_ part: Substring) -> UInt64? {
        guard let first = part.first, first.isASCII, first.isNumber else { return nil }
        let digits: Substring
        let radix: Int
        if part.count > 2, part.hasPrefix("0x") || part.hasPrefix("0X") {
            digits = part.dropFirst(2)
            radix = 16
        } else if part.count > 1, part.hasPrefix("0") {
            digits = part.dropFirst()
            radix = 8
        } else {
            digits = part
            radix = 10
        }
        // UInt64 parses (no sign, no spaces); a value past 32 bits is libcurl's "a name".
        guard digits.allSatisfy({ $0.isASCII && $0.isHexDigit }), let value = UInt64(digits, radix: radix), value <= UInt32.max else {
            return nil
        }
        return value
    }

    /// Exactly four decimal parts of 0–255, no leading zeros (which would read as octal elsewhere).
    static func dottedQuad(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var address: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                part == "0" || !part.hasPrefix("0"), let value = UInt32(part), value <= 255
            else { return nil }
            address = address << 8 | value
        }
        return address
    }

    /// RFC 4291 text through `inet_pton`, as libcurl reads a bracketed host.
    static func v6(_ text: String) -> IPAddress? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: address) { IPAddress(v6Bytes: $0) }
    }
}
