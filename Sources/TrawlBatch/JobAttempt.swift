import Foundation
public import Logging
public import Trawl
import TrawlCore
import TrawlFetch
public import TrawlStore

/// One attempt at one job: resolve its URL through the full pipeline and decide what the
/// attempt means — done, failed for good, or worth another try (and when). A batch's scheduler
/// (``BatchRunner``, or a queue worker) makes one per run with ``make(configuration:search:logger:clock:)``.
public struct JobAttempt: Sendable {
    /// What the scheduler learns from an attempt besides the job's outcome.
    public struct Report: Sendable {
        public var outcome: JobOutcome
        /// Seconds to the document's response, when there was one.
        public var latency: Double?
        /// Hold every request to this host for this long (a `Retry-After`).
        public var holdHost: Double?
        /// The response was a success (autothrottle may shorten the delay).
        public var succeeded: Bool
    }

    let environment: Environment
    let search: TrawlConfiguration.Search
    /// Retries, backoff and `Retry-After`, applied per job: the transport does not retry.
    let policy: FetchPolicy
    let robots: RobotsCache?
    let clock: RunClock

    /// Runs one attempt at `job` (its `attempts` already counting this one).
    public func run(_ job: Job) async -> Report {
        guard let text = job.url, let url = URL(string: text) else {
            return permanent(job, code: FetchError.Code.invalidURL.identifier, message: "'\(job.input)' is not a URL")
        }
        if let robots {
            switch await robots.rules(for: url) {
            case .rules(let rules):
                let path = url.path.isEmpty ? "/" : url.path + (url.query.map { "?\($0)" } ?? "")
                if !rules.allows(path) {
                    return permanent(job, code: "robots-disallowed", message: "\(text) is disallowed by robots.txt", succeeded: true)
                }
            case .unavailable(let reason):
                return transient(job, code: "robots-unavailable", message: reason, status: nil, latency: nil, wait: backoff(job), hold: nil)
            }
        }

        let log = ResponseLog()
        var environment = self.environment
        environment.transport = LoggedTransport(base: environment.transport, log: log)
        environment.renderer = environment.renderer.map { LoggedRenderer(base: $0, log: log) }
        let provider = SearchProvider(environment: environment, search: search)
        var media: [MediaLine] = []
        var seen: Set<String> = []
        var failure: (any Error)?
        do {
            for try await set in provider.results(for: Request(text)) {
                for item in set.media where seen.insert(item.url).inserted {
                    media.append(MediaLine(item, input: job.input, degraded: set.degradation?.description))
                }
            }
        } catch {
            failure = error
        }
        let document = log.document
        let status = document?.status
        let latency = document?.latency

        // One classification (TrawlFetch's), by type: the document's status first, since a
        // 429 or 404 page may still have made a parser throw; then what the transport threw.
        if media.isEmpty, let document,
            let failure = FetchFailure(status: document.status, headers: document.headers, url: text, now: Date(timeIntervalSince1970: clock.now))
        {
            return failed(job, failure, latency: latency, rendered: log.rendered)
        }
        if media.isEmpty, let failure {
            if var fetch = FetchFailure(failure) {
                fetch.status = status
                return failed(job, fetch, latency: latency, timed: false, rendered: log.rendered)
            }
            // A parser's, a recording's or an engine's error keeps its own code (`parse-failed`,
            // `no-recorded-entry`, …); anything without one is `extraction-failed`.
            let code = (failure as? any CodedError)?.errorCode ?? "extraction-failed"
            return permanent(
                job, code: code, message: ErrorSentence.describe(failure, subject: text), status: status, latency: latency, succeeded: status != nil,
                rendered: log.rendered)
        }
        let result = line(job, status: "done", httpStatus: status, media: media, renderError: log.renderFailure)
        return Report(
            outcome: .done(
                JobResult(line: result, httpStatus: status, mediaCount: media.count, latencyMilliseconds: latency.map(Self.ms), rendered: log.rendered)),
            latency: latency, succeeded: true)
    }

    /// A classified failure: another attempt later if it may pass, else the job's result.
    /// - Parameter timed: whether the latency counts towards the summary's percentiles.
    private func failed(_ job: Job, _ failure: FetchFailure, latency: Double?, timed: Bool = true, rendered: Bool = false) -> Report {
        guard failure.isTransient else {
            return permanent(
                job, code: failure.code, message: failure.message, status: failure.status, latency: latency, timed: timed, rendered: rendered)
        }
        let hold = policy.hold(after: failure)
        let wait = policy.wait(after: failure, attempt: job.attempts)
        return transient(
            job, code: failure.code, message: failure.message, status: failure.status, latency: latency, wait: wait.seconds, hold: hold?.seconds)
    }

    /// The jittered backoff after this job's attempts.
    private func backoff(_ job: Job) -> Double {
        policy.backoffSchedule.delay(afterAttempt: job.attempts, draw: policy.random()).seconds
    }

    /// A failure that may pass: another attempt after `wait`, or the last error once retries run out.
    private func transient(_ job: Job, code: String, message: String, status: Int?, latency: Double?, wait: Double, hold: Double?) -> Report {
        guard job.attempts <= policy.retries else {
            var report = permanent(job, code: code, message: "\(message) (after \(job.attempts) attempts)", status: status, latency: latency)
            report.holdHost = hold
            return report
        }
        return Report(outcome: .retryLater(at: clock.now + wait, error: message), latency: latency, holdHost: hold, succeeded: false)
    }

    /// A failure no retry can mend: the job's final result, with the code and message.
    /// - Parameter timed: whether the latency counts towards the summary's percentiles.
    private func permanent(
        _ job: Job, code: String, message: String, status: Int? = nil, latency: Double? = nil, timed: Bool = true, succeeded: Bool = false,
        rendered: Bool = false
    ) -> Report {
        let result = line(job, status: "failed", httpStatus: status, error: (code, message))
        let milliseconds = timed ? latency.map(Self.ms) : nil
        return Report(
            outcome: .failed(JobResult(line: result, httpStatus: status, latencyMilliseconds: milliseconds, errorCode: code, rendered: rendered)),
            latency: latency, succeeded: succeeded)
    }

    private func line(
        _ job: Job, status: String, httpStatus: Int? = nil, media: [MediaLine]? = nil, error: (code: String, message: String)? = nil,
        renderError: ErrorSummary? = nil
    ) -> String {
        BatchResultLine(
            input: job.input, url: job.url, status: status, httpStatus: httpStatus, media: media ?? (status == "done" ? [] : nil),
            error: error.map { .init(code: $0.code, message: $0.message) }, attempts: job.attempts, duplicates: job.duplicates,
            renderError: renderError.map { .init(code: $0.code, message: $0.message) }
        ).encoded()
    }

    private static func ms(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }

    /// The attempt a batch with `configuration` makes: the full pipeline over a transport that
    /// keeps only the cache (the scheduler retries and spaces jobs itself), robots.txt if asked.
    /// - Parameter transport: answers in place of libcurl's (a benchmark's instant answers, a
    ///   recording); the rest of the pipeline is the same.
    public static func make(
        configuration: BatchConfiguration, search: TrawlConfiguration.Search, logger: Logger, clock: RunClock, transport: (any PayloadTransport)? = nil
    ) -> JobAttempt {
        var trawl = configuration.resolve
        trawl.fetch = configuration.fetch.underJobScheduler
        trawl.clock = clock.base
        var environment = Environment(trawl, logger: logger)
        if let transport { environment.transport = transport }
        if let renderer = configuration.renderer, configuration.resolve.browser != .never { environment.renderer = renderer }
        let robots = configuration.robots ? RobotsCache(transport: environment.transport, agent: "trawl") : nil
        return JobAttempt(environment: environment, search: search, policy: configuration.fetch, robots: robots, clock: clock)
    }

}
