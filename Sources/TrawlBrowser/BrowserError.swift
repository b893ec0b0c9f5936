public import TrawlCore

/// The browser could not render a page, or could not run at all.
///
/// Compare with the static members (`error.code == .scriptHung`). The URL in ``description`` has
/// its secrets redacted.
public struct BrowserError: ErrorWithCodes {
    /// What went wrong.
    public struct Code: ErrorCode {
        public typealias Failure = BrowserError
        private enum Base: String, Sendable, Hashable {
            case launchFailed = "browser-launch-failed"
            case crashed = "browser-crashed"
            case timedOut = "browser-timed-out"
            case scriptHung = "script-hung"
            case navigationFailed = "navigation-failed"
            case protocolError = "browser-protocol-error"
            case invalidConfiguration = "invalid-browser-configuration"
            case closed = "browser-closed"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The browser binary could not be started, or never answered its first command.
        public static let launchFailed = Code(.launchFailed)
        /// The browser died (or was killed) while the page was in flight.
        public static let crashed = Code(.crashed)
        /// A command got no reply in time.
        public static let timedOut = Code(.timedOut)
        /// The page's scripts kept its main thread busy past the page budget.
        public static let scriptHung = Code(.scriptHung)
        /// The browser could not load the page (`net::ERR_CONNECTION_REFUSED`, …).
        public static let navigationFailed = Code(.navigationFailed)
        /// The browser answered a command with an error.
        public static let protocolError = Code(.protocolError)
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The pool was shut down.
        public static let closed = Code(.closed)

        /// The stable dash-case code (`script-hung`).
        public var identifier: String { base.rawValue }

        /// Words for people (`script hung`).
        public var description: String {
            switch base {
            case .launchFailed: "browser failed to start"
            case .crashed: "browser crashed"
            case .timedOut: "browser timed out"
            case .scriptHung: "script hung"
            case .navigationFailed: "navigation failed"
            case .protocolError: "browser protocol error"
            case .invalidConfiguration: "invalid browser configuration"
            case .closed: "browser closed"
            }
        }

        /// Worth another try: the next attempt (on a fresh or restarted browser) may go through.
        public var isRetryable: Bool {
            switch base {
            case .crashed, .timedOut, .launchFailed: true
            default: false
            }
        }
    }

    public var code: Code
    /// The page's URL, when the error concerns one page.
    public var url: String?
    /// What the browser said, or what Trawl saw.
    public var message: String

    public init(_ code: Code, url: String? = nil, message: String) {
        self.code = code
        self.url = url
        self.message = message
    }

    public var isRetryable: Bool { code.isRetryable }

    public var description: String {
        Redaction.text("\(code)\(url.map { ": \(Redaction.url($0))" } ?? ""): \(message)")
    }

    static func invalidConfiguration(_ message: String) -> BrowserError { BrowserError(.invalidConfiguration, message: message) }
    static func launchFailed(_ message: String) -> BrowserError { BrowserError(.launchFailed, message: message) }
    static func crashed(_ message: String, url: String? = nil) -> BrowserError { BrowserError(.crashed, url: url, message: message) }
    static func timedOut(_ method: String, url: String? = nil) -> BrowserError {
        BrowserError(.timedOut, url: url, message: "no reply to \(method) in time")
    }
    static func scriptHung(url: String) -> BrowserError {
        BrowserError(.scriptHung, url: url, message: "the page's scripts did not yield within the page budget")
    }
    static func navigationFailed(_ reason: String, url: String) -> BrowserError { BrowserError(.navigationFailed, url: url, message: reason) }
    static func protocolError(_ method: String, _ message: String) -> BrowserError {
        BrowserError(.protocolError, message: "\(method): \(message)")
    }
    static let closed = BrowserError(.closed, message: "the browser pool was shut down")
}
