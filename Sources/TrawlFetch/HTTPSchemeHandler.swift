package import TrawlCore

/// `http:` and `https:` through libcurl's multi interface, on one thread of its own.
///
/// Every transfer of one handler shares a connection cache, a DNS cache and a cookie jar. The
/// thread stops when the handler is released. Share a handler only between loaders with the
/// same ``AddressPolicy``: the guard checks a connection when it is opened, and a connection one
/// loader opened may be reused by another.
package final class HTTPSchemeHandler: SchemeHandler {
    package let schemes = ["http", "https"]
    private let loop = CurlEventLoop()

    package init() {}

    deinit { loop.shutdown() }

    package func load(_ request: FetchRequest, configuration: LoaderConfiguration) -> AsyncThrowingStream<FetchEvent, any Error> {
        guard let host = request.url.host, !host.isEmpty else {
            return AsyncThrowingStream {
                $0.finish(throwing: FetchError(.invalidURL, url: request.url.absoluteString, message: "the URL has no host"))
            }
        }
        // An address host the policy refuses never reaches libcurl (names are checked as
        // libcurl connects, in the open-socket callback).
        if configuration.addressPolicy.decision(forHost: host)?.isAllowed == false {
            return AsyncThrowingStream { $0.finish(throwing: FetchError.refused(host: host, url: request.url.absoluteString)) }
        }
        return loop.start(TransferSpec(request: request, configuration: configuration))
    }

    /// Transfers paused now because their readers are a megabyte behind (``TransferWindow``).
    package var pausedTransfers: Int { loop.pausedTransfers }

    /// The libcurl version string.
    package static var curlVersion: String { CurlGlobal.version }
}
