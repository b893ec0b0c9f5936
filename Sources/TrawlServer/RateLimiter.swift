import Synchronization

/// A token bucket per client: each client may make ``burst`` requests at once, and one more
/// every `1 / rate` seconds after that.
///
/// Buckets are kept in memory only (a restart forgets them) and dropped once full again, so
/// a stream of one-off clients cannot grow the table without end.
final class RateLimiter: Sendable {
    let rate: Double
    let burst: Double
    private let clock = ContinuousClock()
    private let buckets = Mutex<[String: Bucket]>([:])

    struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    /// What the limiter decided for one request.
    enum Decision: Equatable {
        case allowed
        /// Refused; the client may try again after this many seconds (at least 1).
        case limited(retryAfter: Int)
    }

    init(rate: Double, burst: Int) {
        self.rate = rate
        self.burst = Double(max(1, burst))
    }

    /// Takes one token from `client`'s bucket, if it has one.
    func admit(_ client: String, now: ContinuousClock.Instant? = nil) -> Decision {
        let now = now ?? clock.now
        return buckets.withLock { buckets in
            var bucket = buckets[client] ?? Bucket(tokens: burst, updated: now)
            let elapsed = bucket.updated.duration(to: now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(burst, bucket.tokens + max(0, seconds) * rate)
            bucket.updated = max(bucket.updated, now)
            if buckets.count > 10_000 { prune(&buckets, now: now) }
            guard bucket.tokens >= 1 else {
                buckets[client] = bucket
                return .limited(retryAfter: max(1, Int(((1 - bucket.tokens) / rate).rounded(.up))))
            }
            bucket.tokens -= 1
            buckets[client] = bucket
            return .allowed
        }
    }

    /// Drops the buckets that have filled up again: forgetting them changes nothing.
    private func prune(_ buckets: inout [String: Bucket], now: ContinuousClock.Instant) {
        let full = Duration.seconds(burst / rate)
        buckets = buckets.filter { $0.value.updated.duration(to: now) < full }
    }
}
