public import Foundation
public import TrawlCore

/// How every command fetches: the HTTP cache, retries with backoff, `Retry-After`, and
/// per-host politeness. One value, read by `resolve` (through ``transport(over:clock:)``) and by
/// the batch scheduler (which applies the retry and politeness parts per job instead).
///
/// ```swift
/// var policy = FetchPolicy()
/// policy.cache = try FetchPolicy.Cache(directory: URL(fileURLWithPath: "cache"))
/// policy.retries = 2
/// let transport = policy.transport(over: Loader())
/// ```
public struct FetchPolicy: Sendable {
    /// The on-disk HTTP cache, if any.
    public var cache: Cache?
    /// Further attempts after a transient failure (connect errors, timeouts, 5xx, 408, 429).
    public var retries = 3
    /// The first backoff ceiling; each further retry doubles it. The wait is drawn with full
    /// jitter, uniformly from zero to the ceiling.
    public var backoff: Duration = .seconds(1)
    /// The longest backoff or `Retry-After` honoured; a longer one waits this long.
    public var maxBackoff: Duration = .seconds(600)
    /// Within one request (not a batch job, which is rescheduled instead), a wait longer than
    /// this is not sat out: the failure is returned as it is.
    public var maxWaitInRequest: Duration = .seconds(30)
    /// Wait as long as a 429 or 503 asks (`Retry-After`), and hold its host meanwhile.
    public var honoursRetryAfter = true
    /// Requests in flight at once to one host.
    public var perHost = 2
    /// The least time between two request starts to one host.
    public var delay: Duration = .zero
    /// The random source of the backoff's jitter: a number in `0...1`.
    public var random: @Sendable () -> Double = { Double.random(in: 0...1) }

    /// The defaults: three retries from a one-second backoff, two requests per host, no cache.
    public init() {}

    /// Every request goes out once, as asked: no cache, no retries, no per-host limits. What a
    /// ``Loader`` does on its own.
    public static let once: FetchPolicy = {
        var policy = FetchPolicy()
        policy.retries = 0
        policy.perHost = .max
        return policy
    }()

    /// Where the HTTP cache lives and how requests use it.
    public struct Cache: Sendable {
        public let store: HTTPCache
        /// Used by requests that leave ``FetchRequest/cachePolicy`` at `useProtocolPolicy`.
        public var policy: CachePolicy

        public var directory: URL { store.directory }

        /// Opens (and makes, if need be) the cache folder.
        /// - Throws: when the folder cannot be made.
        public init(directory: URL, policy: CachePolicy = .useProtocolPolicy) throws {
            store = try HTTPCache(directory: directory)
            self.policy = policy
        }
    }

    /// The backoff schedule of ``backoff`` and ``maxBackoff``.
    public var backoffSchedule: Backoff { Backoff(first: backoff, maximum: maxBackoff) }

    /// How long the host of `failure` is to be left alone: its `Retry-After`, capped at
    /// ``maxBackoff``, when honoured.
    public func hold(after failure: FetchFailure) -> Duration? {
        guard honoursRetryAfter, let asked = failure.retryAfter else { return nil }
        return min(asked, maxBackoff)
    }

    /// How long to wait before attempt `attempt + 1` after `failure`: the host's hold if the
    /// server asked for one, else a jittered backoff.
    public func wait(after failure: FetchFailure, attempt: Int) -> Duration {
        hold(after: failure) ?? backoffSchedule.delay(afterAttempt: attempt, draw: random())
    }

    /// What a job scheduler leaves to the transport: the cache. Retries, `Retry-After` and
    /// per-host politeness it applies itself, per job, so attempts are never doubled.
    public var underJobScheduler: FetchPolicy {
        var policy = FetchPolicy.once
        policy.cache = cache
        policy.maxBackoff = maxBackoff
        policy.honoursRetryAfter = honoursRetryAfter
        return policy
    }

    /// `base` wrapped in this policy: the cache outermost (a hit costs no politeness), then a
    /// ``PolicyTransport`` for retries, `Retry-After` and per-host limits.
    /// - Parameters:
    ///   - clock: what waits and spacing are measured on (a test's clock in tests).
    ///   - addressPolicy: the policy `base` fetches under: the cache answers only as it allows
    ///     (see ``CachingTransport``).
    public func transport(
        over base: any PayloadTransport, clock: any Clock<Duration> = ContinuousClock(), addressPolicy: AddressPolicy = .allowAll
    ) -> any PayloadTransport {
        var transport = base
        if retries > 0 || perHost < .max || delay > .zero {
            transport = PolicyTransport(base: transport, policy: self, clock: clock)
        }
        if let cache {
            transport = CachingTransport(base: transport, cache: cache.store, policy: cache.policy, addressPolicy: addressPolicy)
        }
        return transport
    }
}
