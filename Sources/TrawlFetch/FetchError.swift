public import TrawlCore

/// A transfer failed: no response, or a response Trawl refused to read.
///
/// An HTTP error status (404, 500) is not a `FetchError`: it is a payload with its status.
/// The URL in ``description`` has its secrets redacted.
public struct FetchError: ErrorWithCodes {
    /// What went wrong; compare with the static members (`error.code == .timedOut`).
    public struct Code: ErrorCode {
        public typealias Failure = FetchError
        private enum Base: String, Sendable, Hashable {
            case invalidURL = "invalid URL"
            case unsupportedScheme = "unsupported scheme"
            case hostNotFound = "host not found"
            case connectionFailed = "connection failed"
            case timedOut = "timed out"
            case tooManyRedirects = "too many redirects"
            case bodyTooLarge = "body too large"
            case connectionLost = "connection lost"
            case badContentEncoding = "bad content encoding"
            case tls = "TLS failure"
            case fileNotFound = "file not found"
            case cacheMiss = "not in cache"
            case refusedAddress = "refused address"
            case cancelled
            case transferFailed = "transfer failed"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        public static let invalidURL = Code(.invalidURL)
        public static let unsupportedScheme = Code(.unsupportedScheme)
        public static let hostNotFound = Code(.hostNotFound)
        public static let connectionFailed = Code(.connectionFailed)
        public static let timedOut = Code(.timedOut)
        public static let tooManyRedirects = Code(.tooManyRedirects)
        /// The body passed the loader's cap (counted after decompression).
        public static let bodyTooLarge = Code(.bodyTooLarge)
        /// The connection broke mid-response (reset, truncated body).
        public static let connectionLost = Code(.connectionLost)
        public static let badContentEncoding = Code(.badContentEncoding)
        public static let tls = Code(.tls)
        public static let fileNotFound = Code(.fileNotFound)
        public static let cacheMiss = Code(.cacheMiss)
        public static let refusedAddress = Code(.refusedAddress)
        public static let cancelled = Code(.cancelled)
        public static let transferFailed = Code(.transferFailed)

        /// Worth another try later: the next attempt may go through. This table is the one
        /// place a transfer failure is judged; ``FetchFailure`` builds on it.
        public var isTransient: Bool {
            switch base {
            case .hostNotFound, .connectionFailed, .timedOut, .connectionLost, .transferFailed: true
            default: false
            }
        }

        /// A stable, machine-readable name (`timed-out`, `host-not-found`): what batch results
        /// and reports print as `error.code`. Spelled out, never derived from ``description``.
        public var identifier: String {
            switch base {
            case .invalidURL: "invalid-url"
            case .unsupportedScheme: "unsupported-scheme"
            case .hostNotFound: "host-not-found"
            case .connectionFailed: "connection-failed"
            case .timedOut: "timed-out"
            case .tooManyRedirects: "too-many-redirects"
            case .bodyTooLarge: "body-too-large"
            case .connectionLost: "connection-lost"
            case .badContentEncoding: "bad-content-encoding"
            case .tls: "tls-failure"
            case .fileNotFound: "file-not-found"
            case .cacheMiss: "not-in-cache"
            case .refusedAddress: "refused-address"
            case .cancelled: "cancelled"
            case .transferFailed: "transfer-failed"
            }
        }

        /// Every code, for tables and tests.
        public static let all: [Code] = [
            .invalidURL, .unsupportedScheme, .hostNotFound, .connectionFailed, .timedOut, .tooManyRedirects, .bodyTooLarge,
            .connectionLost, .badContentEncoding, .tls, .fileNotFound, .cacheMiss, .refusedAddress, .cancelled, .transferFailed,
        ]

        public var description: String { base.rawValue }
    }

    public var code: Code
    /// The URL asked for, as given.
    public var url: String
    /// What libcurl (or the scheme handler) said.
    public var message: String
    /// libcurl's `CURLcode`, when libcurl failed.
    public var curlCode: Int?

    public init(_ code: Code, url: String, message: String, curlCode: Int? = nil) {
        self.code = code
        self.url = url
        self.message = message
        self.curlCode = curlCode
    }

    public var description: String {
        // libcurl's own message may quote the URL (with its key) too: the whole text is redacted.
        Redaction.text("\(code): \(url): \(message)\(curlCode.map { " (curl \($0))" } ?? "")")
    }
}
