public import TrawlCore

/// The store could not be opened or used.
public struct StoreError: ErrorWithCodes {
    /// What went wrong; compare with the static members (`error.code == .locked`).
    public struct Code: ErrorCode {
        public typealias Failure = StoreError
        private enum Base: String, Sendable, Hashable {
            case openFailed = "store-open-failed"
            case locked = "store-locked"
            case lockFailed = "store-lock-failed"
            case failed = "store-failed"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The file is not a job store, or SQLite could not open it.
        public static let openFailed = Code(.openFailed)
        /// Another run holds the store's lock.
        public static let locked = Code(.locked)
        /// The lock file could not be made.
        public static let lockFailed = Code(.lockFailed)
        /// A read or write failed.
        public static let failed = Code(.failed)

        /// The stable code JSON output carries.
        public var identifier: String { base.rawValue }
    }

    public var code: Code
    /// The store file.
    public var path: String
    public var message: String
    /// SQLite's (or the file system's) error beneath.
    public var underlying: UnderlyingError?

    public init(_ code: Code = .failed, path: String, message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.underlying = underlying.map(UnderlyingError.init)
    }

    public var description: String { Redaction.text("\(path): \(message)") }
}
