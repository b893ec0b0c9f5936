/// Exponential backoff with full jitter: after attempt *n* the wait is drawn uniformly from
/// `[0, min(maximum, first × 2^(n-1))]`, so many requests that failed together do not come
/// back together (the "Full Jitter" of AWS's backoff study).
///
/// ```swift
/// let backoff = Backoff(first: .seconds(1), maximum: .seconds(60))
/// backoff.delay(afterAttempt: 3, draw: 0.5)  // 2 s: half of the 4 s ceiling
/// ```
public struct Backoff: Sendable, Hashable {
    /// The ceiling after the first attempt.
    public var first: Duration
    /// No ceiling goes above this.
    public var maximum: Duration

    public init(first: Duration, maximum: Duration) {
        self.first = first
        self.maximum = maximum
    }

    /// The longest wait after `attempt` (1 for the first attempt).
    public func ceiling(afterAttempt attempt: Int) -> Duration {
        let doubled = first.seconds * pow2(max(0, attempt - 1))
        return .seconds(min(maximum.seconds, doubled))
    }

    /// The wait after `attempt`: `draw` (in `0...1`, from the random source) times the ceiling.
    public func delay(afterAttempt attempt: Int, draw: Double) -> Duration {
        .seconds(ceiling(afterAttempt: attempt).seconds * min(1, max(0, draw)))
    }

    /// The wait after `attempt`, drawn from `generator`.
    public func delay(afterAttempt attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        delay(afterAttempt: attempt, draw: Double.random(in: 0...1, using: &generator))
    }

    private func pow2(_ exponent: Int) -> Double {
        exponent >= 1023 ? .infinity : Double(sign: .plus, exponent: exponent, significand: 1)
    }
}
