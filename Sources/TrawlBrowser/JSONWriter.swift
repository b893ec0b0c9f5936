import TrawlCore

/// Serializes a ``JSONValue`` for the DevTools pipe: integral numbers as integers (command ids and
/// node ids must be integers), strings escaped as RFC 8259 asks.
enum JSONWriter {
    static func bytes(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(value, into: &output)
        return output
    }

    private static func write(_ value: JSONValue, into output: inout [UInt8]) {
        switch value {
        case .null: output += Array("null".utf8)
        case .bool(let b): output += Array((b ? "true" : "false").utf8)
        case .number(let n):
            if n.isFinite, n == n.rounded(), abs(n) < 9e15 {
                output += Array(String(Int64(n)).utf8)
            } else if n.isFinite {
                output += Array("\(n)".utf8)
            } else {
                output += Array("null".utf8)
            }
        case .string(let s): writeString(s, into: &output)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { output.append(UInt8(ascii: ",")) }
                write(item, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (i, (key, item)) in members.enumerated() {
                if i > 0 { output.append(UInt8(ascii: ",")) }
                writeString(key, into: &output)
                output.append(UInt8(ascii: ":"))
                write(item, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ s: String, into output: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        output.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\n"): output += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): output += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\t"): output += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                output += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
