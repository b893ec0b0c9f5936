import Foundation

/// Reads JSON bytes straight into a ``JSONValue``.
///
/// `JSONDecoder` decoding `JSONValue` through `Decodable` tries each kind in turn and throws on
/// every miss, so each string in a payload cost two thrown errors; site payloads hold tens of
/// thousands of strings. This reader makes one pass over UTF-8 and builds the value as it goes.
///
/// It reads RFC 8259 JSON and is lenient where pages are: a UTF-8 byte order mark is skipped,
/// a lone surrogate escape becomes U+FFFD and invalid UTF-8 in a string is repaired the way
/// `String(decoding:as:)` does. Anything else malformed is a ``JSONReadError`` with the offset.
struct JSONReader {
    static let maxDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// Reused between strings: most strings have no escapes and skip it.
    private var scratch: [UInt8] = []

    static func read(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONReadError) -> JSONValue {
        var reader = JSONReader(bytes: bytes)
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { reader.index = 3 }
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.index == bytes.count else { throw reader.error("unexpected text after the value") }
        return value
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private func error(_ reason: String) -> JSONReadError { JSONReadError(offset: index, reason: reason) }

    private mutating func skipSpace() {
        while index < bytes.count {
            let c = bytes[index]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            index += 1
        }
    }

    private mutating func value(depth: Int) throws(JSONReadError) -> JSONValue {
        guard depth < Self.maxDepth else { throw error("nested deeper than \(Self.maxDepth)") }
        guard index < bytes.count else { throw error("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected character '\(Unicode.Scalar(bytes[index]))'")
        }
    }

    private mutating func object(depth: Int) throws(JSONReadError) -> JSONValue {
        index += 1
        var members: [String: JSONValue] = [:]
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key") }
            let key = try string()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipSpace()
            members[key] = try value(depth: depth + 1)
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end in an object") }
            let c = bytes[index]
            index += 1
            if c == UInt8(ascii: ",") { continue }
            if c == UInt8(ascii: "}") { return .object(members) }
            index -= 1
            throw error("expected ',' or '}'")
        }
    }

    private mutating func array(depth: Int) throws(JSONReadError) -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            skipSpace()
            elements.append(try value(depth: depth + 1))
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end in an array") }
            let c = bytes[index]
            index += 1
            if c == UInt8(ascii: ",") { continue }
            if c == UInt8(ascii: "]") { return .array(elements) }
            index -= 1
            throw error("expected ',' or ']'")
        }
    }

    private mutating func string() throws(JSONReadError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)]), as: UTF8.self)
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { throw error("control character in a string") }
            index += 1
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        var pendingHigh: UInt32?
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                if pendingHigh != nil { appendScalar(0xFFFD) }
                index += 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if c < 0x20 { throw error("control character in a string") }
            guard c == UInt8(ascii: "\\") else {
                if pendingHigh != nil { appendScalar(0xFFFD); pendingHigh = nil }
                scratch.append(c)
                index += 1
                continue
            }
            guard index + 1 < bytes.count else { break }
            let escape = bytes[index + 1]
            index += 2
            if escape == UInt8(ascii: "u") {
                let unit = try hex4()
                if (0xD800..<0xDC00).contains(unit) {
                    if pendingHigh != nil { appendScalar(0xFFFD) }
                    pendingHigh = unit
                } else if (0xDC00..<0xE000).contains(unit) {
                    if let high = pendingHigh {
                        appendScalar(0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00))
                        pendingHigh = nil
                    } else {
                        appendScalar(0xFFFD)
                    }
                } else {
                    if pendingHigh != nil { appendScalar(0xFFFD); pendingHigh = nil }
                    appendScalar(unit)
                }
                continue
            }
            if pendingHigh != nil { appendScalar(0xFFFD); pendingHigh = nil }
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escape)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            default:
                index -= 1
                throw error("invalid escape '\\\(Unicode.Scalar(escape))'")
            }
        }
        throw error("unterminated string")
    }

    private mutating func hex4() throws(JSONReadError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let digit: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func appendScalar(_ value: UInt32) {
        let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
        UTF8.encode(scalar) { scratch.append($0) }
    }

    private mutating func literal(_ word: StaticString) throws(JSONReadError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end") }
        for k in 0..<count where bytes[index + k] != word.utf8Start[k] { throw error("invalid literal") }
        index += count
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func number() throws(JSONReadError) -> Double {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
        var integer: Int = 0
        var digits = 0
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            digits = 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                if digits < 18 { integer = integer * 10 + Int(bytes[index] - UInt8(ascii: "0")) }
                digits += 1
                index += 1
            }
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            isInteger = false
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            isInteger = false
        }
        // Integers up to 2^53 are exact as Double; the rest go through the standard parser.
        if isInteger && digits <= 15 { return Double(negative ? -integer : integer) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text) else { throw JSONReadError(offset: start, reason: "invalid number") }
        return value
    }

    private func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
}

/// JSON that could not be read: where and why.
public struct JSONReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Byte offset in the input.
    public var offset: Int
    public var reason: String

    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String { Redaction.text("\(reason) at byte \(offset)") }
}
