/// A linear JSON syntax check over bytes, with no allocation: used to tell a JSON literal cut
/// out of a script from a JavaScript object literal (unquoted keys, functions) before making
/// it a payload.
enum JSONSyntax {
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var parser = Validator(bytes: bytes)
        parser.skipSpace()
        guard parser.value(depth: 0) else { return false }
        parser.skipSpace()
        return parser.index == bytes.count
    }

    /// The index just past the JSON value that starts at `start`, or nil when the bytes there
    /// do not start with one: a bracket's end and its validity in one pass.
    static func valueEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var parser = Validator(bytes: bytes, index: start)
        return parser.value(depth: 0) ? parser.index : nil
    }

    private struct Validator {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let c = current, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { index += 1 }
        }

        mutating func value(depth: Int) -> Bool {
            guard depth < 512, let c = current else { return false }
            switch c {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        mutating func object(depth: Int) -> Bool {
            index += 1
            skipSpace()
            if current == UInt8(ascii: "}") { index += 1; return true }
            while true {
                skipSpace()
                guard current == UInt8(ascii: "\""), string() else { return false }
                skipSpace()
                guard current == UInt8(ascii: ":") else { return false }
                index += 1
                skipSpace()
                guard value(depth: depth + 1) else { return false }
                skipSpace()
                if current == UInt8(ascii: ",") { index += 1; continue }
                if current == UInt8(ascii: "}") { index += 1; return true }
                return false
            }
        }

        mutating func array(depth: Int) -> Bool {
            index += 1
            skipSpace()
            if current == UInt8(ascii: "]") { index += 1; return true }
            while true {
                skipSpace()
                guard value(depth: depth + 1) else { return false }
                skipSpace()
                if current == UInt8(ascii: ",") { index += 1; continue }
                if current == UInt8(ascii: "]") { index += 1; return true }
                return false
            }
        }

        mutating func string() -> Bool {
            index += 1
            while let c = current {
                index += 1
                if c == UInt8(ascii: "\"") { return true }
                if c == UInt8(ascii: "\\") {
                    guard escape() else { return false }
                } else if c < 0x20 {
                    return false
                }
            }
            return false
        }

        /// The escape after a backslash: one of `"\\/bfnrt`, or `u` and four hex digits.
        mutating func escape() -> Bool {
            guard let e = current else { return false }
            index += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                return true
            case UInt8(ascii: "u"):
                for _ in 0..<4 {
                    guard let h = current, (h >= 0x30 && h <= 0x39) || (h | 0x20 >= 0x61 && h | 0x20 <= 0x66) else { return false }
                    index += 1
                }
                return true
            default:
                return false
            }
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for i in 0..<count where bytes[index + i] != word.utf8Start[i] { return false }
            index += count
            return true
        }

        /// RFC 8259: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` — what the reader
        /// accepts, so a payload kept as JSON is one it can read.
        mutating func number() -> Bool {
            if current == UInt8(ascii: "-") { index += 1 }
            if current == UInt8(ascii: "0") {
                index += 1
            } else if !digits() {
                return false
            }
            if current == UInt8(ascii: ".") {
                index += 1
                guard digits() else { return false }
            }
            if let c = current, c | 0x20 == UInt8(ascii: "e") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard digits() else { return false }
            }
            return true
        }

        /// Skips a run of digits; false when there is none.
        mutating func digits() -> Bool {
            let start = index
            while let c = current, c >= 0x30 && c <= 0x39 { index += 1 }
            return index > start
        }
    }
}
