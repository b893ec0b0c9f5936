/// An error with a stable code that scripts can match on: the `error.code` that JSON output
/// carries (`invalid-url`, `timed-out`, `http-404`). Codes are documented in docs/cli.md and do
/// not change between versions; messages may.
public protocol CodedError: Error, Sendable, CustomStringConvertible {
    /// The stable code, lower case with dashes.
    var errorCode: String { get }
}

/// An error with many codes: its ``code`` is a value of its nested ``ErrorCode`` type, to
/// compare (`error.code == .timedOut`) and to catch by (`catch FetchError.Code.timedOut`).
public protocol ErrorWithCodes: CodedError, Hashable {
    associatedtype Code: ErrorCode where Code.Failure == Self
    var code: Code { get }
}

extension ErrorWithCodes {
    public var errorCode: String { code.identifier }
}

/// The code of an ``ErrorWithCodes``: a closed set of static members, each with the stable
/// ``identifier`` JSON output carries and a ``description`` for messages.
public protocol ErrorCode: Sendable, Hashable, CustomStringConvertible {
    /// The error type this is the code of.
    associatedtype Failure: ErrorWithCodes where Failure.Code == Self
    /// The stable code, lower case with dashes.
    var identifier: String { get }
}

extension ErrorCode {
    public var description: String { identifier }

    /// Lets `catch QueueError.Code.unreachable` read well.
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? Failure)?.code == code
    }
}

/// The code and message JSON output prints for any error.
public struct ErrorSummary: Sendable, Hashable, Codable {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// A ``CodedError``'s code, `cancelled` for cancellation, `failed` for anything else; the
    /// message is ``ErrorSentence/describe(_:subject:)``'s sentence.
    public init(_ error: any Error) {
        if let coded = error as? any CodedError {
            code = coded.errorCode
        } else if error is CancellationError {
            code = "cancelled"
        } else {
            code = "failed"
        }
        message = ErrorSentence.describe(error)
    }
}

extension ErrorSummary {
    /// Codes that say the request itself is wrong (a usage error: exit 2, HTTP 400), not that
    /// the work failed.
    public static let usageCodes: Set<String> = [
        "invalid-url", "unsupported-scheme", "invalid-request", "empty-query", "unknown-engine", "invalid-query",
    ]

    /// Whether the code says the request itself is wrong (``usageCodes``).
    public var isUsageError: Bool { Self.usageCodes.contains(code) }
}

extension ParseError: CodedError {
    /// `parse-failed`: a parser could not read a payload (the chain falls through to the next).
    public var errorCode: String { "parse-failed" }
}

extension JSONReadError: CodedError {
    /// `invalid-json`.
    public var errorCode: String { "invalid-json" }
}
