/// A count and its noun for a sentence: `1 result`, `2 results`, `0 results`.
///
/// ```swift
/// Counted(1, "result").description            // "1 result"
/// Counted(3, "entry", plural: "entries").description  // "3 entries"
/// ```
public struct Counted: Sendable, Hashable, CustomStringConvertible {
    public var count: Int
    public var singular: String
    public var plural: String

    /// - Parameters:
    ///   - count: how many.
    ///   - singular: the noun for one.
    ///   - plural: the plural when it is not the singular with an `s`.
    public init(_ count: Int, _ singular: String, plural: String? = nil) {
        self.count = count
        self.singular = singular
        self.plural = plural ?? singular + "s"
    }

    public var description: String { "\(count) \(count == 1 ? singular : plural)" }
}
