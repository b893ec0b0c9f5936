/// A URL string's parts found by byte, not by `Character`.
///
/// The parsers read the host, path and file name of every candidate URL a page holds.
/// `Character`-level `firstIndex(where:)`, `split` and `drop(while:)` find grapheme boundaries
/// at every step, and on those paths cost more than the checks they serve. A URL's structure is
/// ASCII (`://`, `/`, `?`, `#`, `:`), and URL parsers split on those bytes whatever follows
/// them, so these read the UTF-8 bytes. The indices they return are `String` indices on
/// scalar boundaries (a byte below 0x80 is always a whole scalar).
extension StringProtocol {
    /// The index of the first byte at or after `start` that `isDelimiter` accepts, or `endIndex`.
    @inlinable
    public func utf8Index(from start: Index, to isDelimiter: (UInt8) -> Bool) -> Index {
        utf8[start...].firstIndex(where: isDelimiter) ?? endIndex
    }

    /// Whether every byte is printable ASCII (0x20–0x7E): then every byte is one `Character`,
    /// and a byte count or a byte split says what the `Character`-level one would.
    @inlinable
    public var isPrintableASCII: Bool {
        if let answer = utf8.withContiguousStorageIfAvailable({ bytes in bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }) {
            return answer
        }
        return utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
}

/// The ASCII bytes of a URL's structure.
public enum URLByte {
    public static let slash = UInt8(ascii: "/")
    public static let question = UInt8(ascii: "?")
    public static let hash = UInt8(ascii: "#")
    public static let colon = UInt8(ascii: ":")

    /// The end of a host: `/`, `?` or `#`.
    @inlinable
    public static func endsHost(_ byte: UInt8) -> Bool { byte == slash || byte == question || byte == hash }

    /// The end of a path: `?` or `#`.
    @inlinable
    public static func endsPath(_ byte: UInt8) -> Bool { byte == question || byte == hash }
}

extension String {
    /// Whether this host (in lower case) is `domain` or a host below it: `media.giphy.com` and
    /// `giphy.com` are of `giphy.com`, `notgiphy.com` is not. Compared by byte, without building
    /// `"." + domain` for each domain of a list.
    @inlinable
    public func isHost(orBelow domain: String) -> Bool {
        let host = utf8
        let name = domain.utf8
        var h = host.endIndex
        var d = name.endIndex
        while d > name.startIndex {
            guard h > host.startIndex else { return false }
            host.formIndex(before: &h)
            name.formIndex(before: &d)
            guard host[h] == name[d] else { return false }
        }
        guard h > host.startIndex else { return true }
        return host[host.index(before: h)] == UInt8(ascii: ".")
    }
}
