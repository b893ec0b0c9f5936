public import Foundation
public import TrawlCore

/// What a failed fetch means, judged by type: an HTTP status (with its `Retry-After`) or a
/// ``FetchError`` code. It is the one classification every command uses: the retrying
/// transport decides from it whether to try again, a batch job whether to come back later, and
/// its ``code`` is the `error.code` a batch result prints.
///
/// ```swift
/// if let failure = FetchFailure(status: 503, headers: ["Retry-After": "2"], url: url), failure.isTransient {
///     // wait failure.retryAfter (2 s), then try again
/// }
/// ```
public struct FetchFailure: Sendable, Hashable, CustomStringConvertible {
    /// Whether trying again may help; compare with the static members.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case transient, permanent
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The next attempt may go through (5xx, 408, 429, connection errors, timeouts).
        public static let transient = Kind(.transient)
        /// No retry can mend it (404, an invalid URL, a body over the cap).
        public static let permanent = Kind(.permanent)
        public var description: String { base.rawValue }
    }

    public var kind: Kind
    /// A stable name: `http-STATUS` for a status, ``FetchError/Code/identifier`` for a transfer
    /// failure (`timed-out`, `host-not-found`, …).
    public var code: String
    /// The HTTP status, when there was a response.
    public var status: Int?
    /// How long the server asked to be left alone (`Retry-After` on a 429 or 503), uncapped.
    /// It holds the whole host, not only this request.
    public var retryAfter: Duration?
    /// A sentence for a person, naming the URL (its secrets redacted).
    public var message: String

    public var isTransient: Bool { kind == .transient }

    public var description: String { message }

    public init(kind: Kind, code: String, status: Int? = nil, retryAfter: Duration? = nil, message: String) {
        self.kind = kind
        self.code = code
        self.status = status
        self.retryAfter = retryAfter
        self.message = message
    }

    /// The failure a response's status means; `nil` for a success (2xx).
    /// - Parameters:
    ///   - headers: the response's headers (for `Retry-After`).
    ///   - url: the URL asked for, for the message.
    ///   - now: the time an HTTP-date `Retry-After` is counted from.
    public init?(status: Int, headers: HTTPHeaders = [:], url: String, now: Date = Date()) {
        guard !(200..<300).contains(status) else { return nil }
        let transient = status >= 500 || status == 408 || status == 429
        self.init(
            kind: transient ? .transient : .permanent, code: "http-\(status)", status: status,
            retryAfter: status == 429 || status == 503 ? RetryAfter.parse(headers["retry-after"], now: now) : nil,
            message: "HTTP \(status) from \(Redaction.url(url))")
    }

    /// The failure a thrown error means: a ``FetchError`` by its code, anything else `nil`
    /// (a parser's or engine's error is not the fetch layer's to judge).
    public init?(_ error: any Error) {
        guard let fetch = error as? FetchError else { return nil }
        self.init(kind: fetch.code.isTransient ? .transient : .permanent, code: fetch.code.identifier, message: fetch.description)
    }
}
