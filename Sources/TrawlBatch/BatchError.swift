public import TrawlCore

/// A batch run could not start or go on (the store, the input, the output). One URL's failure
/// is never a `BatchError`: it is that job's result.
public struct BatchError: ErrorWithCodes {
    public struct Code: ErrorCode {
        public typealias Failure = BatchError
        private enum Base: String, Sendable, Hashable {
            case unreadableInput = "unreadable input"
            case unwritableOutput = "unwritable output"
            case store
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        public static let unreadableInput = Code(.unreadableInput)
        public static let unwritableOutput = Code(.unwritableOutput)
        public static let store = Code(.store)
        public var description: String { base.rawValue }
        /// The stable code JSON output carries: `unreadable-input`, `unwritable-output`, `store-failed`.
        public var identifier: String {
            switch base {
            case .unreadableInput: "unreadable-input"
            case .unwritableOutput: "unwritable-output"
            case .store: "store-failed"
            }
        }
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { Redaction.text(message) }
}
