public import Foundation
public import TrawlCore

/// One rule the browser consults for every request a page makes that is not a blocked resource
/// type (CDP `Fetch.requestPaused`): answer it from a recording, check where it goes, record what
/// comes back.
///
/// A ``BrowserPool`` holds an ordered list of them. For each paused request the interceptors
/// decide in order; the first that does not answer ``InterceptionDecision/next`` settles it, and
/// when all pass the request goes to the network. Responses that came from the network are then
/// shown to every interceptor with an ``observe`` closure (with the body, up to the size cap).
///
/// ```swift
/// let deny = RequestInterceptor { request in
///     request.url.host == "ads.example" ? .fail(.blockedByClient) : .next
/// }
/// let pool = BrowserPool(configuration: BrowserConfiguration(), interceptors: [deny])
/// ```
public struct RequestInterceptor: Sendable {
    /// What to do with a request before it is sent.
    public var decide: @Sendable (InterceptedRequest) async -> InterceptionDecision
    /// Called with each response the network gave a request, before the page sees it; `nil`
    /// when the interceptor does not look at responses (then the browser does not pause them).
    public var observe: (@Sendable (InterceptedRequest, InterceptedResponse) async -> Void)?

    public init(
        decide: @escaping @Sendable (InterceptedRequest) async -> InterceptionDecision = { _ in .next },
        observe: (@Sendable (InterceptedRequest, InterceptedResponse) async -> Void)? = nil
    ) {
        self.decide = decide
        self.observe = observe
    }
}

/// A request a page is about to send, as the browser paused it.
public struct InterceptedRequest: Sendable {
    /// The URL as the page asked for it (`http`, `https`; `data:` and `blob:` are never paused).
    public var url: URL
    public var method: String
    public var headers: HTTPHeaders
    /// The request body (a POST's form or JSON), when the browser has it.
    public var body: Data?
    /// CDP's resource type: `Document`, `Script`, `XHR`, `Fetch`, `Other`, …
    public var resourceType: String
    /// When the browser paused it.
    public var started: Date

    public init(url: URL, method: String = "GET", headers: HTTPHeaders = [:], body: Data? = nil, resourceType: String, started: Date = Date()) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.resourceType = resourceType
        self.started = started
    }

    /// Whether it loads a frame's document (the page itself or an iframe).
    public var isDocument: Bool { resourceType == "Document" }
}

/// A response, given to the page instead of the network's (``InterceptionDecision/fulfill(_:)``),
/// or the network's own shown to ``RequestInterceptor/observe``.
public struct InterceptedResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    /// Decoded (no `Content-Encoding` applies to it). When observed: empty for a redirect, and for
    /// a body over ``BrowserConfiguration/maxBodyBytes`` (``bodyOmitted`` is then true).
    public var body: Data
    /// The body was not kept: over the size cap, or the browser no longer had it.
    public var bodyOmitted: Bool
    /// From the request's pause to its response (observed responses only).
    public var duration: Duration

    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data(), bodyOmitted: Bool = false, duration: Duration = .zero) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyOmitted = bodyOmitted
        self.duration = duration
    }
}

/// What an interceptor says about a paused request.
public enum InterceptionDecision: Sendable {
    /// No opinion: the next interceptor decides (after the last, the request goes on).
    case next
    /// Send it to the network now, without asking the interceptors after this one.
    case proceed
    /// Answer it with this response; the network never sees it.
    case fulfill(InterceptedResponse)
    /// Fail it as if the network had (the page sees a network error).
    case fail(InterceptionFailure)
    /// Fail it as ``fail(_:)`` does, for a reason Trawl reports: when the request loads the page's
    /// own document (a navigation or a redirect of it), rendering the page fails with `error`
    /// (the address guard's `refused-address`); an iframe or a script's request only fails.
    case refuse(InterceptionFailure, error: any Error)
}

/// The network errors an interceptor can fail a request with (CDP's `Network.ErrorReason`).
public enum InterceptionFailure: String, Sendable, CaseIterable {
    case failed = "Failed"
    case aborted = "Aborted"
    case timedOut = "TimedOut"
    case accessDenied = "AccessDenied"
    case connectionRefused = "ConnectionRefused"
    case nameNotResolved = "NameNotResolved"
    case internetDisconnected = "InternetDisconnected"
    case addressUnreachable = "AddressUnreachable"
    case blockedByClient = "BlockedByClient"
}

extension Array where Element == RequestInterceptor {
    /// The first decision other than ``InterceptionDecision/next``, or `.next` when all pass.
    func decide(_ request: InterceptedRequest) async -> InterceptionDecision {
        for interceptor in self {
            let decision = await interceptor.decide(request)
            if case .next = decision { continue }
            return decision
        }
        return .next
    }

    /// Whether any interceptor looks at responses (the browser then pauses them too).
    var observesResponses: Bool { contains { $0.observe != nil } }
}
