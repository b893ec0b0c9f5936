public import Foundation

/// How a request may use a cache.
public enum CachePolicy: String, Sendable, Hashable, Codable {
    /// Follow the response's own cache headers.
    case useProtocolPolicy
    /// A cached response of any age, else the network.
    case returnCacheElseLoad
    /// Always the network; the answer refreshes the cache.
    case reloadIgnoringCache
    /// Only the cache; a miss is an error.
    case cacheOnly
}

/// One request a loader carries out.
public struct FetchRequest: Sendable, Hashable {
    public var url: URL
    public var method: String
    public var headers: HTTPHeaders
    public var body: Data?
    public var cachePolicy: CachePolicy
    /// Overall time limit for this request; `nil` uses the loader's.
    public var timeout: Duration?
    /// Read at most this many bytes of the body, then end the transfer: the payload is that
    /// prefix (a probe's first 64 KiB from a server that ignores `Range`). Such a partial answer
    /// is never stored in the HTTP cache. `nil`: the whole body (within the loader's cap).
    public var maxBodyBytes: Int?

    public init(
        url: URL, method: String = "GET", headers: HTTPHeaders = [:], body: Data? = nil,
        cachePolicy: CachePolicy = .useProtocolPolicy, timeout: Duration? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.cachePolicy = cachePolicy
        self.timeout = timeout
    }
}
