import Foundation
import TrawlCore

/// One step of a transfer, as a scheme handler streams it.
public enum FetchEvent: Sendable {
    /// The final response's status line and headers (after redirects); comes once, first.
    case head(ResponseHead)
    /// The next piece of the body, decompressed.
    case body(Data)
}

/// The status and headers of the response a transfer ended on.
public struct ResponseHead: Sendable, Hashable {
    /// The URL after redirects.
    public var url: URL
    public var status: Int
    public var headers: HTTPHeaders
    /// Redirects followed on the way.
    public var redirects: Int

    public init(url: URL, status: Int, headers: HTTPHeaders, redirects: Int = 0) {
        self.url = url
        self.status = status
        self.headers = headers
        self.redirects = redirects
    }
}
