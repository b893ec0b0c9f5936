import Hummingbird
import NIOHTTP1
import TrawlCore

/// Which HTTP status answers which error: the table docs/serve.md documents.
///
/// | status | codes |
/// |---|---|
/// | 400 | the request is wrong: `malformed-request` (a body HTTP cannot read), `invalid-url`, `unsupported-scheme`, `invalid-request`, `empty-query`, `unknown-engine`, `invalid-query`, `invalid-cursor`, … |
/// | 403 | `refused-address`: the page's address is one the server will not fetch |
/// | 404 | `not-found`: no such route or batch; `no-recorded-entry`: a replaying server's recordings hold no answer |
/// | 502 | the page or engine failed: `host-not-found`, `connection-failed`, `http-STATUS`, `tls-failure`, … |
/// | 503 | `missing-configuration`, `no-default-engine`: the server cannot do this kind of search |
/// | 504 | `timed-out` (the page), `request-timed-out` (the whole request) |
/// | 500 | anything else, as `internal-error` with a sentence, never a stack |
enum ErrorStatus {
    /// Codes that mean the request itself is wrong.
    static let usage: Set<String> = ErrorSummary.usageCodes.union(["invalid-json"])
    /// Codes that mean the server is not set up for the request.
    static let unavailable: Set<String> = ["missing-configuration", "no-default-engine"]
    /// Codes of a page or engine (or its recording) that failed.
    static let upstream: Set<String> = [
        "host-not-found", "connection-failed", "connection-lost", "transfer-failed", "tls-failure", "too-many-redirects",
        "body-too-large", "bad-content-encoding", "not-in-cache", "file-not-found", "parse-failed", "html-unreadable",
        "extraction-failed", "bad-recorded-entry", "recording-unreadable", "invalid-har",
        "browser-launch-failed", "browser-crashed", "browser-timed-out", "script-hung", "navigation-failed",
        "browser-protocol-error", "browser-closed",
    ]

    /// The API error for any error a handler threw.
    static func apiError(for error: any Error) -> APIError {
        if let api = error as? APIError { return api }
        // A body the HTTP parser gave up on (a broken chunked encoding) surfaces in the handler
        // reading it: the client's mistake, said as for a head it cannot read.
        if let parse = error as? HTTPParserError { return MalformedRequestAnswer.answer(for: parse) }
        if let http = error as? HTTPError {
            // Hummingbird's own: an unknown route, a body over the limit, a bad request line.
            let code: String
            switch http.status {
            case .notFound: code = "not-found"
            case .contentTooLarge: code = "request-too-large"
            case .methodNotAllowed: code = "method-not-allowed"
            default: code = http.status.code < 500 ? "bad-request" : "internal-error"
            }
            return APIError(http.status, code: code, message: http.body ?? http.status.reasonPhrase.lowercased(), headers: http.headers)
        }
        let summary = ErrorSummary(error)
        return APIError(status(for: summary.code), code: summary.code == "failed" ? "internal-error" : summary.code, message: summary.message)
    }

    /// The status for a ``CodedError`` code.
    static func status(for code: String) -> HTTPResponse.Status {
        switch code {
        case _ where usage.contains(code): .badRequest
        case "refused-address": .forbidden
        // A replaying server's world is its recordings: what they do not hold does not exist.
        case "no-recorded-entry": .notFound
        case "timed-out", "request-timed-out": .gatewayTimeout
        case "cancelled": HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request")
        case _ where unavailable.contains(code): .serviceUnavailable
        case _ where upstream.contains(code) || code.hasPrefix("http-") || code.hasPrefix("robots-"): .badGateway
        default: .internalServerError
        }
    }
}
