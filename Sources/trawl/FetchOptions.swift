import ArgumentParser
import Foundation
import TrawlCore
import TrawlFetch

/// The fetch-policy flags every fetching command shares (`resolve`, `batch`, `worker`): the
/// policy (``FetchPolicyOptions``) and the opt-in address guard (``AddressOptions``). Same names,
/// same meaning everywhere; `serve`, whose guard is always on, takes the policy alone.
struct FetchOptions: ParsableArguments {
    @OptionGroup
    var policyOptions: FetchPolicyOptions

    @OptionGroup
    var address: AddressOptions

    /// The policy these flags describe, its cache folder opened.
    func policy() throws -> FetchPolicy { try policyOptions.policy() }
}

/// The HTTP cache, retries with backoff and per-host politeness.
struct FetchPolicyOptions: ParsableArguments {
    @Option(help: "Requests in flight at once to one host.")
    var perHost: Int = 2

    @Option(help: "Seconds between two request starts to one host.")
    var delay: Double = 0

    @Option(help: "Further attempts after a transient failure (timeouts, connection errors, 5xx, 429); Retry-After is honoured.")
    var retries: Int = 3

    @Option(help: "Seconds of the first backoff; each retry doubles it, with full jitter.")
    var backoff: Double = 1

    @Option(help: "Keep an HTTP cache (RFC 9111: max-age, no-store, Vary, ETag/Last-Modified revalidation) in this folder.")
    var cache: String?

    @Option(help: "How requests use the cache: use-protocol, return-cache-else-load, reload, cache-only.")
    var cachePolicy: CachePolicyArgument = .useProtocol

    enum CachePolicyArgument: String, ExpressibleByArgument, CaseIterable {
        case useProtocol = "use-protocol", returnCacheElseLoad = "return-cache-else-load", reload, cacheOnly = "cache-only"
        var policy: CachePolicy {
            switch self {
            case .useProtocol: .useProtocolPolicy
            case .returnCacheElseLoad: .returnCacheElseLoad
            case .reload: .reloadIgnoringCache
            case .cacheOnly: .cacheOnly
            }
        }
    }

    func validate() throws {
        if perHost < 1 { throw ValidationError("--per-host must be at least 1") }
        if retries < 0 { throw ValidationError("--retries must not be negative") }
        if !(delay >= 0) || !(backoff >= 0) { throw ValidationError("--delay and --backoff must not be negative") }
        if cachePolicy != .useProtocol && cache == nil { throw ValidationError("--cache-policy needs --cache") }
    }

    /// The policy these flags describe, its cache folder opened.
    /// - Throws: when the cache folder cannot be made.
    func policy() throws -> FetchPolicy {
        var policy = FetchPolicy()
        policy.perHost = perHost
        policy.delay = .milliseconds(Int(delay * 1000))
        policy.retries = retries
        policy.backoff = .milliseconds(Int(backoff * 1000))
        policy.cache = try cache.map { try FetchPolicy.Cache(directory: URL(fileURLWithPath: $0), policy: cachePolicy.policy) }
        return policy
    }
}
