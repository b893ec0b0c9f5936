/// What the scheduler knows of one host: what is in flight, when the next request may start,
/// and, with autothrottle, the delay its latency calls for.
struct HostState {
    /// Requests in flight.
    var active = 0
    /// The next request may start at this time (unix seconds): the per-host delay after the last
    /// start, or a `Retry-After` / backoff block.
    var nextStart: Double = 0
    /// The host has due jobs in the store, as far as the scheduler knows.
    var hasDueWork = true
    /// When the earliest job not yet due falls due.
    var nextDue: Double?
    /// The current delay between starts, seconds.
    var delay: Double

    init(delay: Double) {
        self.delay = delay
    }

    /// The host can take another request now.
    func canStart(now: Double, perHost: Int) -> Bool {
        hasDueWork && active < perHost && nextStart <= now
    }

    /// The host is idle with nothing left to do: the scheduler may forget it.
    var isSpent: Bool { active == 0 && !hasDueWork && nextDue == nil }

    /// AutoThrottle's rule (Scrapy's): aim for `target` requests in flight, so the delay heads for
    /// latency ÷ target, moving halfway there per response; an error response never shortens it.
    mutating func adapt(latency: Double, target: Double, succeeded: Bool, minimum: Double, maximum: Double) {
        let wanted = latency / max(target, 0.01)
        var next = (delay + wanted) / 2
        if !succeeded { next = max(next, delay) }
        delay = min(max(next, minimum), maximum)
    }
}
