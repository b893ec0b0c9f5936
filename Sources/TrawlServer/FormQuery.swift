import Hummingbird

/// A request's query string read as HTML forms write it: `name=value` pairs split on `&`, `+`
/// for a space, then percent-escapes decoded (`%2B` is a literal `+`). The first value of a
/// name wins.
///
/// A browser form, `curl --data-urlencode` and `URLSearchParams` all write a space as `+`; a
/// query read without this would search for `cats+dogs`.
struct FormQuery: Sendable, Hashable {
    private var values: [String: String] = [:]

    init(_ query: String?) {
        for pair in (query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            guard values[name] == nil else { continue }
            values[name] = parts.count == 2 ? Self.decode(parts[1]) : ""
        }
    }

    init(_ request: Request) { self.init(request.uri.query) }

    /// The first value of `name`; `nil` when it is not there.
    func get(_ name: String) -> String? { values[name] }

    /// `name` as a boolean: `true` or `false` (any case); absent: `false`.
    /// - Throws: `400 invalid-request` for any other value (`null`, `1`, `yes`), so that a
    ///   client's mistake is said rather than read as `false`.
    func flag(_ name: String) throws -> Bool {
        try flag(name, default: false)
    }

    /// `name` as a boolean: `true` or `false` (any case); absent: `byDefault`.
    /// - Throws: `400 invalid-request` for any other value.
    func flag(_ name: String, default byDefault: Bool) throws -> Bool {
        guard let value = values[name] else { return byDefault }
        switch value.lowercased() {
        case "true": return true
        case "false": return false
        default:
            throw APIError.usage("invalid-request", "\(name) '\(ResolveParameters.shown(value))' is not true or false")
        }
    }

    /// `+` as a space, then `%XX` escapes as bytes (an escape that is not two hex digits is
    /// kept as written; bytes that are not UTF-8 become U+FFFD).
    static func decode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                if iterator.count >= 2, let high = hexValue(iterator[iterator.startIndex]),
                    let low = hexValue(iterator[iterator.startIndex + 1])
                {
                    bytes.append(high << 4 | low)
                    iterator.removeFirst(2)
                } else {
                    bytes.append(byte)
                }
            default:
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
