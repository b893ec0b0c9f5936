import TrawlStore

/// The politeness bookkeeping of a batch run: which hosts may start a request now, how many,
/// and when to look again. It never touches the store; the run loop claims what it asks for.
///
/// Hosts wait in a round-robin line of candidates; a host leaves the line when it is full
/// (per-host cap), delayed (a wake-up is set), or out of due work, and comes back when a job of
/// it finishes, its wake-up passes, or new work arrives. So each step costs the hosts that can
/// act, not every host the list names.
struct Scheduler {
    private let concurrency: Int
    private let perHost: Int
    private let baseDelay: Double
    private let autothrottle: Bool
    private let target: Double
    private let maxDelay: Double

    private var hosts: [String: HostState] = [:]
    private var line: [String] = []
    private var inLine: Set<String> = []
    private var wakes = WakeQueue()
    private(set) var inFlight = 0

    init(configuration: BatchConfiguration) {
        concurrency = max(1, configuration.concurrency)
        perHost = max(1, configuration.fetch.perHost)
        baseDelay = configuration.fetch.delay.seconds
        autothrottle = configuration.autothrottle
        target = configuration.autothrottleTarget
        maxDelay = configuration.maxDelay.seconds
    }

    /// Jobs that may start before the global limit is reached.
    var freeSlots: Int { concurrency - inFlight }

    /// Nothing in flight, nobody in line, no wake-up set.
    var isIdle: Bool { inFlight == 0 && line.isEmpty && wakes.isEmpty }

    /// When the run loop should look again if nothing else happens.
    var nextWake: Double? { wakes.earliest }

    /// The state of `host`, made on first sight.
    private mutating func state(_ host: String) -> HostState {
        if let state = hosts[host] { return state }
        let state = HostState(delay: baseDelay)
        hosts[host] = state
        return state
    }

    private mutating func enqueue(_ host: String) {
        if inLine.insert(host).inserted { line.append(host) }
    }

    /// A host found in the store with unfinished jobs.
    mutating func learn(_ work: HostWork) {
        var host = state(work.host)
        host.hasDueWork = work.due > 0
        host.nextDue = work.nextAt
        hosts[work.host] = host
        if host.hasDueWork { enqueue(work.host) }
        if let at = work.nextAt { wakes.push(work.host, at: at) }
    }

    /// Intake added jobs for `host`.
    mutating func hasNewWork(_ host: String) {
        var state = state(host)
        state.hasDueWork = true
        hosts[host] = state
        enqueue(host)
    }

    /// Hosts whose wake-up passed go back in line.
    mutating func wake(now: Double) {
        for name in wakes.popDue(now: now) {
            guard var host = hosts[name] else { continue }
            if let due = host.nextDue, due <= now {
                host.hasDueWork = true
                host.nextDue = nil
            }
            hosts[name] = host
            enqueue(name)
        }
    }

    /// How many jobs to claim from which hosts, now: hosts in line order, each up to its free
    /// slots (one at a time when it has a delay), until the global limit is reached.
    mutating func wants(now: Double) -> [(host: String, limit: Int)] {
        var free = concurrency - inFlight
        var wants: [(host: String, limit: Int)] = []
        var index = 0
        while index < line.count, free > 0 {
            let name = line[index]
            index += 1
            guard let host = hosts[name], host.hasDueWork else {
                inLine.remove(name)
                continue
            }
            if host.active >= perHost {
                inLine.remove(name)  // back in line when one of its jobs finishes
                continue
            }
            if host.nextStart > now {
                inLine.remove(name)
                wakes.push(name, at: host.nextStart)
                continue
            }
            var limit = min(perHost - host.active, free)
            if host.delay > 0 { limit = 1 }
            wants.append((name, limit))
            free -= limit
            inLine.remove(name)
        }
        line.removeFirst(index)
        return wants
    }

    /// Books what the store handed out.
    mutating func claimed(_ claim: Claim, now: Double) {
        for job in claim.jobs {
            guard let name = job.host, var host = hosts[name] else { continue }
            host.active += 1
            inFlight += 1
            if host.delay > 0 {
                host.nextStart = now + host.delay
                wakes.push(name, at: host.nextStart)
            }
            hosts[name] = host
        }
        for (name, next) in claim.exhausted {
            guard var host = hosts[name] else { continue }
            host.hasDueWork = false
            host.nextDue = next
            if let next { wakes.push(name, at: next) }
            hosts[name] = host
            forgetIfSpent(name)
        }
        // A host that got all it asked for may have more due work: it goes to the back of the line.
        for job in claim.jobs {
            guard let name = job.host, let host = hosts[name], host.hasDueWork, host.active < perHost, host.delay == 0 else { continue }
            enqueue(name)
        }
    }

    /// Books an attempt's end: the slot frees, a `Retry-After` holds the host, autothrottle adapts.
    mutating func finished(_ job: Job, report: JobAttempt.Report, now: Double) {
        guard let name = job.host, var host = hosts[name] else {
            inFlight -= 1
            return
        }
        host.active -= 1
        inFlight -= 1
        if let hold = report.holdHost {
            host.nextStart = max(host.nextStart, now + hold)
            wakes.push(name, at: host.nextStart)
        }
        if autothrottle, let latency = report.latency {
            host.adapt(latency: latency, target: target, succeeded: report.succeeded, minimum: baseDelay, maximum: maxDelay)
        }
        if case .retryLater(let at, _) = report.outcome {
            host.nextDue = min(host.nextDue ?? at, at)
            wakes.push(name, at: at)
        }
        hosts[name] = host
        if host.hasDueWork { enqueue(name) }
        forgetIfSpent(name)
    }

    private mutating func forgetIfSpent(_ name: String) {
        if let host = hosts[name], host.isSpent { hosts[name] = nil }
    }
}
