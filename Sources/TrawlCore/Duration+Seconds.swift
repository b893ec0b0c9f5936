extension Duration {
    /// The duration in seconds, fractions included: what the stores, the clocks and the
    /// reports keep as a `Double`.
    public var seconds: Double {
        let (whole, atto) = components
        return Double(whole) + Double(atto) / 1e18
    }

    /// Whole milliseconds, at least 1 for any positive duration (libcurl's timeouts).
    public var milliseconds: Int {
        let (seconds, attoseconds) = components
        let ms = Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
        return self > .zero ? max(ms, 1) : 0
    }
}
