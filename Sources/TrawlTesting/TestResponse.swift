public import Foundation

/// What the loopback server does with a request: answer well, or misbehave on purpose.
public enum TestResponse: Sendable {
    /// A complete response with a `Content-Length`.
    case ok(status: Int = 200, headers: [(String, String)] = [], body: Data)
    /// Headers, then `chunks` sent one at a time with `interval` between them (no length).
    case drip(headers: [(String, String)] = [], chunks: [Data], interval: Duration)
    /// Headers, then `start`, then `filler` over and over (zeros unless given) until the client
    /// leaves.
    case endless(headers: [(String, String)] = [], start: Data = Data(), filler: Data = Data(count: 64 << 10))
    /// Declares `declaredLength`, sends `body` (shorter), then resets the connection.
    case truncated(headers: [(String, String)] = [], declaredLength: Int, body: Data)
    /// Bytes written as they are (status line and headers included).
    case raw(Data)
    /// Closes the connection without a word.
    case hangUp

    /// An HTML page.
    public static func html(_ text: String, status: Int = 200, charset: String? = "utf-8") -> TestResponse {
        .ok(status: status, headers: [("Content-Type", "text/html" + (charset.map { "; charset=\($0)" } ?? ""))], body: Data(text.utf8))
    }

    /// A JSON document.
    public static func json(_ text: String, status: Int = 200) -> TestResponse {
        .ok(status: status, headers: [("Content-Type", "application/json")], body: Data(text.utf8))
    }

    /// A redirect to `location`.
    public static func redirect(_ location: String, status: Int = 302) -> TestResponse {
        .ok(status: status, headers: [("Location", location)], body: Data())
    }

    /// A plain-text status page.
    public static func status(_ status: Int, headers: [(String, String)] = []) -> TestResponse {
        .ok(status: status, headers: [("Content-Type", "text/plain")] + headers, body: Data("status \(status)\n".utf8))
    }
}

/// A request as the loopback server read it.
public struct TestRequest: Sendable, Hashable {
    public var method: String
    /// Path and query, as sent.
    public var target: String
    public var headers: [String: String]

    /// The path without the query.
    public var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}
