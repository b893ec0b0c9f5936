public import Foundation

/// A parsed JSON document as a `Sendable` value, for parsers that walk payloads whose shape they
/// only partly know. Lookups that miss return `nil` instead of throwing, so a moved field costs
/// that field.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses JSON bytes (UTF-8; UTF-16 and UTF-32 go through `JSONDecoder`).
    /// - Throws: ``JSONReadError`` with the byte offset when UTF-8 bytes are not JSON.
    public init(parsing data: Data) throws {
        if let first = data.first, first == 0 || first == 0xFE || first == 0xFF || (data.count > 1 && data[data.startIndex + 1] == 0) {
            self = try JSONDecoder().decode(JSONValue.self, from: data)
            return
        }
        self = try data.withUnsafeBytes { raw throws(JSONReadError) in try JSONReader.read(raw.bindMemory(to: UInt8.self)) }
    }

    public init(parsing text: String) throws {
        try self.init(parsing: Data(text.utf8))
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    public subscript(index: Int) -> JSONValue? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }

    /// Follows a path of keys and indices: `value[path: "data", "images", 0]`.
    public subscript(path path: any JSONPathComponent...) -> JSONValue? {
        var current: JSONValue? = self
        for component in path { current = current.flatMap { component.step(into: $0) } }
        return current
    }

    public var string: String? {
        switch self {
        case .string(let s): s
        case .number(let n): n.rounded() == n && abs(n) < 1e15 ? String(Int(n)) : String(n)
        default: nil
        }
    }

    /// Integers, also when a site sends them as strings (`"width": "480"`).
    public var int: Int? {
        switch self {
        case .number(let n): n.isFinite && abs(n) < 1e15 ? Int(n) : nil
        case .string(let s): Int(s.trimmingCharacters(in: .whitespaces))
        default: nil
        }
    }

    public var double: Double? {
        switch self {
        case .number(let n): n
        case .string(let s): Double(s)
        default: nil
        }
    }

    public var bool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var array: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var object: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// Every value in this tree, depth first (self included).
    public func walk(_ visit: (JSONValue) -> Void) {
        visit(self)
        switch self {
        case .array(let a): for v in a { v.walk(visit) }
        case .object(let o): for key in o.keys.sorted() { o[key]!.walk(visit) }
        default: break
        }
    }
}

/// A step in a ``JSONValue`` path: a `String` key or an `Int` index.
public protocol JSONPathComponent: Sendable {
    func step(into value: JSONValue) -> JSONValue?
}

extension String: JSONPathComponent {
    public func step(into value: JSONValue) -> JSONValue? { value[self] }
}

extension Int: JSONPathComponent {
    public func step(into value: JSONValue) -> JSONValue? { value[self] }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? container.decode(Double.self) {
            self = .number(n)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let a = try? container.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .number(let n): try container.encode(n)
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }
}
