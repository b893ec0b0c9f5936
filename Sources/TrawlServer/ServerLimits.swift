public import TrawlFetch

/// What one request, and one client, may ask of the server.
///
/// The defaults suit a server on loopback used by one app or person; a server exposed to
/// others wants a ``token``, and perhaps a lower ``rate``.
public struct ServerLimits: Sendable, Hashable {
    /// The longest a request may take before it is answered `504 request-timed-out` (a
    /// streaming resolve ends with an error event instead once its first result is out).
    public var requestTimeout: Duration = .seconds(60)
    /// Resolves running at once; more wait their turn (inside ``requestTimeout``).
    public var maxConcurrentResolves = 16
    /// Resolves one client may have running or waiting; one more is `429 too-many-resolves`.
    public var maxConcurrentResolvesPerClient = 4
    /// Requests per second one client (by remote address) may make to `/v1/…`, on average;
    /// `nil`: no limit.
    public var rate: Double? = 20
    /// Requests one client may make at once above ``rate`` (the bucket's size).
    public var burst = 40
    /// How long a connection may go without a whole request head arriving — after it opens or
    /// after its last answer — before it is closed: a client that sends its headers a byte at a
    /// time, or keeps an idle connection, does not hold a socket for long.
    public var idleTimeout: Duration = .seconds(15)
    /// Connections one client (by address) may have open at once; one more is closed at once.
    public var maxConnectionsPerClient = 32
    /// The longest request target (path and query) in bytes; longer is `413 url-too-long`.
    public var maxURLLength = 8192
    /// The largest request body in bytes (a batch's URL list); larger is `413 request-too-large`.
    public var maxBodyBytes = 4 << 20
    /// The most media one resolve may ask for with `limit`.
    public var maxResolveLimit = 500
    /// Search sessions (`/v1/sessions`) open at once; one more is `503 too-many-sessions`
    /// once those idle longest have been closed.
    public var maxSessions = 256
    /// Search sessions one client may have open; one more is `429 too-many-sessions`.
    public var maxSessionsPerClient = 16
    /// A session with no query, load-more or close for this long is closed (its event streams
    /// end): an app that went away does not keep one.
    public var sessionIdleTimeout: Duration = .seconds(600)
    /// How long a session waits for the typing to stop before it searches (a session may ask
    /// for less or more, up to 2 s).
    public var sessionDebounce: Duration = .milliseconds(250)
    /// When set, `/v1/…` and `/metrics` need `Authorization: Bearer TOKEN` (`401` otherwise).
    public var token: String?
    /// Origins browser apps may call the API from (`*` for any); empty: no CORS headers, and
    /// a browser page on another site or origin may not use the API (`CrossSiteRequestMiddleware`).
    public var corsOrigins: [String] = []
    /// Names clients reach the server by, beside IP addresses and `localhost`: a request whose
    /// `Host` is any other name is `421 unknown-host` (DNS rebinding).
    public var publicHosts: [String] = []
    /// Reverse proxies whose `X-Forwarded-For` names the client that limits count against
    /// (`ClientAddressMiddleware`); empty: every client is its socket's address.
    public var trustedProxies: [AddressRange] = []
    /// Whether a server bound to an address other than loopback may start without a
    /// ``token`` (`--no-auth`): anyone who can reach it can then use it.
    public var allowsNoAuthOnPublicBind = false

    public init() {}
}
