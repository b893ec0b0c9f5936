public import Foundation
public import TrawlCore

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

extension ResponseHead {
    /// The body's length as handed on, when the head declares it: `Content-Length`, unless a
    /// content coding applies — then it counts the compressed bytes on the wire, not the
    /// decoded body libcurl delivers, and sizing buffers by it would be wrong.
    var bodyLength: Int? {
        if let coding = headers["content-encoding"]?.trimmedWhitespace.lowercased(), !coding.isEmpty, coding != "identity" { return nil }
        return headers["content-length"].flatMap { Int($0) }
    }
}
