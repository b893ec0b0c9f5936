/// Header fields in order, looked up without regard to case.
public struct HTTPHeaders: Sendable, Hashable, Codable, Sequence, ExpressibleByDictionaryLiteral {
    public struct Field: Sendable, Hashable, Codable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public private(set) var fields: [Field]

    public init(_ fields: [Field] = []) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The first value for `name`.
    public subscript(name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    public mutating func add(name: String, value: String) { fields.append(Field(name: name, value: value)) }

    /// Replaces every field called `name` with one.
    public mutating func replace(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    public mutating func remove(name: String) { fields.removeAll { $0.name.caseInsensitiveEquals(name) } }

    public var isEmpty: Bool { fields.isEmpty }
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }
}
