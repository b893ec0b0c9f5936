/// The error beneath another: a file system error under a recording that cannot be read, a
/// SQLite error under a store that cannot open. Boxed so the error structs that carry one stay
/// `Hashable` (two causes are equal when they read the same).
public struct UnderlyingError: Sendable, Hashable, CustomStringConvertible {
    public let error: any Error & Sendable

    public init(_ error: any Error & Sendable) {
        self.error = error
    }

    /// A sentence for the cause, secrets redacted.
    public var description: String { ErrorSentence.describe(error) }

    public static func == (a: UnderlyingError, b: UnderlyingError) -> Bool {
        String(reflecting: type(of: a.error)) == String(reflecting: type(of: b.error)) && a.description == b.description
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(description)
    }
}
