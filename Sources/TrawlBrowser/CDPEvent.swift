import TrawlCore

/// One DevTools event: a method name, its parameters, and the session (tab) it belongs to.
struct CDPEvent: Sendable {
    var method: String
    var params: JSONValue
    /// `nil` for the browser's own events.
    var sessionId: String?
}
