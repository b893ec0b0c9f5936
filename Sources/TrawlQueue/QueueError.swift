public import TrawlCore

/// The queue could not be reached or used. One URL's failure is never a `QueueError`: it is
/// that job's result.
public struct QueueError: ErrorWithCodes {
    /// What went wrong; compare with the static members (`error.code == .unreachable`).
    public struct Code: ErrorCode {
        public typealias Failure = QueueError
        private enum Base: String, Sendable, Hashable {
            case invalidLocation = "queue-invalid-url"
            case unreachable = "queue-unreachable"
            case schema = "queue-schema-failed"
            case failed = "queue-failed"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// `--queue` is not a `postgres://` URL this version can use.
        public static let invalidLocation = Code(.invalidLocation)
        /// The server did not answer, or refused the connection or the login.
        public static let unreachable = Code(.unreachable)
        /// The schema could not be created or brought up to date.
        public static let schema = Code(.schema)
        /// A query failed.
        public static let failed = Code(.failed)

        /// The stable code JSON output carries.
        public var identifier: String { base.rawValue }
    }

    public var code: Code
    /// The queue's location, its password removed.
    public var location: String
    public var message: String
    /// PostgreSQL's (or the connection's) error beneath.
    public var underlying: UnderlyingError?

    public init(_ code: Code = .failed, location: String, message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.location = location
        self.message = message
        self.underlying = underlying.map(UnderlyingError.init)
    }

    public var description: String { Redaction.text("\(location): \(message)") }
}
