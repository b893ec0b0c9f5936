import TrawlCore

/// What a page's loop waits on: its session's events, clock ticks, or the end of its session.
enum PageSignal: Sendable {
    case event(CDPEvent)
    case tick
    /// The browser died, or the tab was detached.
    case closed(BrowserError)
    /// The reply to a command the page sent without waiting for it (`Page.navigate`,
    /// `Network.getResponseBody`): the page keeps answering paused requests meanwhile.
    case reply(PageCommand, Result<JSONValue, BrowserError>)
    /// An interceptor refused the page's own document (``InterceptionDecision/refuse(_:error:)``):
    /// the page fails with this error.
    case refused(any Error)
}

/// Which of a page's background commands a ``PageSignal/reply(_:_:)`` answers.
enum PageCommand: Sendable, Hashable {
    case navigate
    case responseBody(requestId: String)
    /// ``ScriptActivity/probe``, sent when the network had been through `activity` events.
    case idleProbe(activity: Int)
    /// ``ScriptActivity/timerProbe``, sent when the network had been through `activity` events.
    case timerProbe(activity: Int)
}
