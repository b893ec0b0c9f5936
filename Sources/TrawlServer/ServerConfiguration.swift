public import Foundation
public import Trawl
public import TrawlBatch

/// Everything `trawl serve` needs to run: where it listens, how it fetches, its limits.
///
/// ```swift
/// var configuration = ServerConfiguration()
/// configuration.port = 0  // a free port
/// configuration.limits.token = "s3cret"
/// let server = try TrawlServer(configuration: configuration)
/// try await server.run()
/// ```
///
/// The library reads no environment variables and no flags: the `trawl serve` command builds
/// this value (and the loader configuration inside ``trawl``, in one marked place).
public struct ServerConfiguration: Sendable {
    /// The address to bind: loopback unless asked otherwise.
    public var host = "127.0.0.1"
    /// The port to bind; `0` picks a free one (the bound port is reported once listening).
    public var port = 8080
    /// How resolves fetch and parse: the loader, the fetch policy (HTTP cache), replay, browser.
    /// Its `probe` (`trawl serve --probe`) makes resolves and sessions probed unless a request
    /// says `probe=false`, with its renditions and dead-media choices as their defaults.
    public var trawl = TrawlConfiguration()
    /// How batches fetch; the loader, fetch policy and browser settings come from ``trawl``
    /// when the server is made.
    public var batch = BatchConfiguration()
    /// Where each batch keeps its job store, its URL list and its results
    /// (`ID.sqlite`, `ID.urls`, `ID.jsonl`). `nil`: batches are refused. A server that replays
    /// recordings runs its batches on them too.
    public var batchDirectory: URL?
    /// How many batches run and are kept, and for how long.
    public var batchLimits = BatchLimits()
    /// Request limits, authentication and CORS.
    public var limits = ServerLimits()

    public init() {}
}
