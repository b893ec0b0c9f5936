/// Per-host politeness for requests: at most `perHost` in flight to one host, starts at least
/// `delay` apart, and a host held (a `Retry-After`) starts nothing until the hold ends.
actor HostGate {
    private struct Host {
        var active = 0
        /// Nothing may start before this (timeline time): the delay after the last start, or a hold.
        var nextStart: Duration = .zero
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let perHost: Int
    private let delay: Duration
    private let timeline: Timeline
    private var hosts: [String: Host] = [:]

    init(perHost: Int, delay: Duration, timeline: Timeline) {
        self.perHost = max(1, perHost)
        self.delay = delay
        self.timeline = timeline
    }

    /// Waits for a slot and the host's next start time, and takes the slot.
    /// - Throws: `CancellationError` if cancelled while waiting for the start time (the slot is given back).
    func enter(_ host: String) async throws {
        while hosts[host, default: Host()].active >= perHost {
            await withCheckedContinuation { hosts[host, default: Host()].waiting.append($0) }
        }
        let now = timeline.now
        var state = hosts[host, default: Host()]
        let start = max(now, state.nextStart)
        state.active += 1
        state.nextStart = start + delay
        hosts[host] = state
        guard start > now else { return }
        do {
            try await timeline.sleep(until: start)
        } catch {
            leave(host)
            throw error
        }
    }

    /// Gives a slot back.
    func leave(_ host: String) {
        guard var state = hosts[host] else { return }
        state.active -= 1
        if !state.waiting.isEmpty { state.waiting.removeFirst().resume() }
        if state.active == 0, state.waiting.isEmpty, state.nextStart <= timeline.now {
            hosts[host] = nil
        } else {
            hosts[host] = state
        }
    }

    /// Nothing starts to `host` for `duration` from now.
    func hold(_ host: String, for duration: Duration) {
        var state = hosts[host, default: Host()]
        state.nextStart = max(state.nextStart, timeline.now + duration)
        hosts[host] = state
    }
}
