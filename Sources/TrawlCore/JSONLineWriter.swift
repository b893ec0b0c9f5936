/// Writes one line of JSON straight into bytes, keys in the order the caller gives them: what
/// ``BatchResultLine/encoded()`` uses in place of `JSONEncoder`, whose boxing of every value,
/// key sorting and escaping through `Encoder` containers were about a twentieth of a queue
/// worker's CPU on a small page. The output is the text `TrawlJSON.line` writes for the same
/// value (sorted keys, slashes unescaped, absent optionals left out), which the tests compare
/// byte for byte.
///
/// The caller writes keys in sorted order (byte order, as `.sortedKeys` sorts ASCII keys).
struct JSONLineWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the object being written has a member yet (a comma goes before the next).
    private var needsComma = false

    init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    var string: String { String(decoding: bytes, as: UTF8.self) }

    mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func beginArray(_ key: StaticString) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Before an array's element: the comma, if it is not the first.
    mutating func element() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = false
    }

    /// `"key":`, after a comma if the object has members already; for an object or array value.
    mutating func key(_ key: StaticString) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    mutating func member(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        self.key(key)
        write(value)
        needsComma = true
    }

    mutating func member(_ key: StaticString, _ value: Int?) {
        guard let value else { return }
        self.key(key)
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    mutating func member(_ key: StaticString, _ value: Bool?) {
        guard let value else { return }
        self.key(key)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    /// As `JSONEncoder` writes a `Double` (its shortest form, without a trailing `.0`). JSON has
    /// no NaN or infinity: such a value is left out, as an absent one is (`JSONEncoder` fails
    /// the whole value instead, and the line was then `{}`).
    mutating func member(_ key: StaticString, _ value: Double?) {
        guard let value, value.isFinite else { return }
        self.key(key)
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
        needsComma = true
    }

    mutating func member(_ key: StaticString, _ values: [String]?) {
        guard let values else { return }
        beginArray(key)
        for value in values {
            element()
            write(value)
            needsComma = true
        }
        endArray()
    }

    /// A string value, escaped as `JSONEncoder` escapes it: `"` and `\`, control characters
    /// (`\b \f \n \r \t`, the others as `\u00XX`); everything else as it is, `/` included.
    mutating func element(_ value: String) {
        element()
        write(value)
        needsComma = true
    }

    private mutating func write(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
