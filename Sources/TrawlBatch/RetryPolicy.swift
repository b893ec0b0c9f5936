import Foundation

/// When a failed attempt may go again.
struct RetryPolicy: Sendable {
    var retries: Int
    var backoff: Double
    var maxBackoff: Double

    init(configuration: BatchConfiguration) {
        retries = configuration.retries
        backoff = configuration.backoff.seconds
        maxBackoff = configuration.maxBackoff.seconds
    }

    /// Exponential backoff with full jitter: a random wait up to `backoff × 2^(attempt-1)`, so
    /// many jobs that failed together do not return together.
    func delay(afterAttempt attempt: Int) -> Double {
        let ceiling = min(maxBackoff, backoff * pow(2, Double(max(0, attempt - 1))))
        return Double.random(in: (ceiling / 2)...max(ceiling / 2, ceiling))
    }

    /// A `Retry-After` value: delay-seconds or an HTTP date, capped at ``maxBackoff``.
    func retryAfter(_ value: String?, now: Date = Date()) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value), seconds >= 0 { return min(seconds, maxBackoff) }
        guard let date = HTTPDate.parse(value) else { return nil }
        return min(max(0, date.timeIntervalSince(now)), maxBackoff)
    }
}

extension Duration {
    /// The duration in seconds, fractions included.
    var seconds: Double {
        let (whole, atto) = components
        return Double(whole) + Double(atto) / 1e18
    }
}
