public import TrawlCore

/// The local index could not answer or could not be used.
public struct IndexError: ErrorWithCodes {
    /// What went wrong; compare with the static members (`error.code == .invalidQuery`).
    public struct Code: ErrorCode {
        public typealias Failure = IndexError
        private enum Base: String, Sendable, Hashable {
            case invalidQuery = "invalid-query"
            case openFailed = "index-open-failed"
            case failed = "index-failed"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A `!local` query the index cannot read: unbalanced quotes or parentheses, a dangling
        /// `OR`, an unknown filter, a cursor from elsewhere. A usage error: the message names the
        /// query, never SQL.
        public static let invalidQuery = Code(.invalidQuery)
        /// The index file cannot be opened or made (a folder that cannot be written).
        public static let openFailed = Code(.openFailed)
        /// A read or write failed.
        public static let failed = Code(.failed)

        /// The stable code JSON output carries.
        public var identifier: String { base.rawValue }
    }

    public var code: Code
    /// A sentence for a person, naming the query or the file.
    public var message: String
    /// SQLite's (or the file system's) error beneath; never part of ``description`` for a query.
    public var underlying: UnderlyingError?

    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying.map(UnderlyingError.init)
    }

    public var description: String { Redaction.text(message) }
}
