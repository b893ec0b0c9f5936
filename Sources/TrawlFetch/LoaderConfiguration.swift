import TrawlCore

/// How a ``Loader`` behaves. Defaults suit resolving one pasted URL.
public struct LoaderConfiguration: Sendable, Hashable {
    public var userAgent: String
    /// Time to establish a connection.
    public var connectTimeout: Duration
    /// Time for a whole request, redirects included; a request's own ``FetchRequest/timeout`` wins.
    public var timeout: Duration
    /// A transfer slower than ``lowSpeedLimit`` bytes per second for this long is abandoned.
    public var lowSpeedTime: Duration
    public var lowSpeedLimit: Int
    /// Bodies larger than this (after decompression) fail with ``FetchError/Code/bodyTooLarge``.
    public var maxBodySize: Int
    public var maxRedirects: Int
    /// Use HTTP/2 where the server offers it (over TLS).
    public var http2: Bool
    /// Keep cookies across this loader's requests, in memory.
    public var cookies: Bool
    /// With ``cookies``: one jar for every transfer of the loader (a site's consent cookie
    /// serves the next page). Off, each transfer keeps the cookies of its own redirects only:
    /// for a server whose transfers belong to different clients, none of whom may see what a
    /// site set for another.
    public var sharesCookies = true
    /// Verify TLS certificates.
    public var verifyTLS: Bool
    /// `HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT` entries, as curl's `--connect-to`.
    public var connectTo: [String]
    /// Which addresses connections may go to: ``AddressPolicy/allowAll`` by default;
    /// ``AddressPolicy/denyPrivate`` for URLs from strangers (checked at every connect, redirects
    /// included; proxies from the environment are then not used).
    public var addressPolicy: AddressPolicy
    /// Follow redirects (up to ``maxRedirects``). Off, a 3xx is the response itself: for a client
    /// that follows them on its own (the browser, whose every hop is fetched and checked anew).
    public var followsRedirects = true

    public init(
        userAgent: String = LoaderConfiguration.defaultUserAgent,
        connectTimeout: Duration = .seconds(10),
        timeout: Duration = .seconds(30),
        lowSpeedTime: Duration = .seconds(15),
        lowSpeedLimit: Int = 1,
        maxBodySize: Int = 32 << 20,
        maxRedirects: Int = 10,
        http2: Bool = true,
        cookies: Bool = true,
        verifyTLS: Bool = true,
        connectTo: [String] = [],
        addressPolicy: AddressPolicy = .allowAll
    ) {
        self.userAgent = userAgent
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.lowSpeedTime = lowSpeedTime
        self.lowSpeedLimit = lowSpeedLimit
        self.maxBodySize = maxBodySize
        self.maxRedirects = maxRedirects
        self.http2 = http2
        self.cookies = cookies
        self.verifyTLS = verifyTLS
        self.connectTo = connectTo
        self.addressPolicy = addressPolicy
    }

    /// Names the project and its version. Trawl has no public home page to link to, so none
    /// is invented: operators of large crawls should add their own contact (`--user-agent`).
    public static let defaultUserAgent = "Trawl/\(TrawlVersion.string) (GIF resolver; libcurl)"
}
