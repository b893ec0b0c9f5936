import Foundation
import TrawlCore
import TrawlFetch
import TrawlParsers
import TrawlRecordings

/// The status of one case in a smoke run.
public enum SmokeStatus: String, Sendable, Codable, Hashable, CaseIterable, Comparable {
    /// The site parser met every expectation.
    case pass
    /// Met only through a fallback parser (the site changed, Trawl coped).
    case degraded
    /// Expectations not met, or a parse error: the site changed and Trawl did not cope.
    case fail
    /// The site was unreachable or answered 5xx after every retry: it is down, which is not a
    /// parser bug.
    case skipped

    public static func < (a: SmokeStatus, b: SmokeStatus) -> Bool {
        let order: [SmokeStatus] = [.pass, .skipped, .degraded, .fail]
        return order.firstIndex(of: a)! < order.firstIndex(of: b)!
    }
}

/// One case's outcome.
public struct SmokeResult: Sendable, Codable, Hashable {
    public var name: String
    public var site: String
    public var input: String
    public var status: SmokeStatus
    /// Why it is not a pass.
    public var reasons: [String]
    /// What was recorded but is gone now (JSON paths, meta keys, requests).
    public var vanished: [String]
    public var seconds: Double
    public var attempts: Int
    /// The media found: URL and still, for the report's thumbnails.
    public var media: [Found]
    /// Whether `--record` rewrote this case's recording.
    public var rerecorded: Bool

    public struct Found: Sendable, Codable, Hashable {
        public var url: String
        public var still: String?
        public var kind: String
    }
}

/// How a smoke run is made.
public struct SmokeOptions: Sendable {
    /// Only these sites (folder names); empty for all.
    public var sites: Set<String> = []
    /// Replay the recordings instead of going live.
    public var replay = false
    /// Rewrite the recordings of cases that passed live.
    public var record = false
    public var timeout: Duration = .seconds(30)
    /// Extra attempts for a case whose site looked down.
    public var retries = 1
    /// `HOST:PORT:TO_HOST:TO_PORT`, as curl's `--connect-to`.
    public var connectTo: [String] = []
    /// Speak plain HTTP to every host (for a local mirror behind `connectTo`).
    public var plainHTTP = false

    public init() {}
}

extension Trawl {
    /// Runs every case under `recordings` (filtered by ``SmokeOptions/sites``) live, or replayed,
    /// and grades each: pass, degraded, fail, skipped.
    public static func smoke(recordings: URL, options: SmokeOptions) async throws -> [SmokeResult] {
        let cases = try RecordedCase.all(in: recordings)
            .filter { options.sites.isEmpty || options.sites.contains($0.site) }
            .filter { options.replay || !$0.recordingCase.synthetic }  // modelled pages do not exist live
        var results: [SmokeResult] = []
        for recorded in cases { results.append(await smoke(recorded, options: options)) }
        return results
    }

    static func smoke(_ recorded: RecordedCase, options: SmokeOptions) async -> SmokeResult {
        let clock = ContinuousClock()
        let started = clock.now
        var attempts = 0
        var run: CaseRun
        var recorder: HARRecorder
        repeat {
            attempts += 1
            recorder = HARRecorder()
            var configuration = Configuration(loader: LoaderConfiguration(timeout: options.timeout, connectTo: options.connectTo))
            configuration.plainHTTP = options.plainHTTP
            run = await Trawl.run(recorded, replay: options.replay, configuration: configuration, recorder: options.replay ? nil : recorder)
        } while isSiteDown(run) && attempts <= options.retries

        var status: SmokeStatus
        var reasons = run.verdict.reasons
        switch run.verdict.outcome {
        case .pass: status = .pass
        case .degraded:
            // A drift case exists to prove the fallback copes: degraded is its pass.
            status = recorded.recordingCase.expect.status == .degraded ? .pass : .degraded
        case .fail: status = .fail
        }
        if status == .fail, run.verdict.onlyFieldsMissing {
            // Every result is there, some fields are not: the site dropped them.
            status = .degraded
        }
        if isSiteDown(run) {
            status = .skipped
            reasons = ["the site looks down after \(attempts) attempts: \(run.error.map { "\($0)" } ?? "no answer")"]
        }
        var vanished: [String] = []
        var rerecorded = false
        if !options.replay {
            let live = await recorder.recorded
            if status != .pass, status != .skipped, let old = try? HAR.read(from: recorded.archive) {
                vanished = PayloadDiff.vanished(recorded: old.log.entries, live: live)
            }
            if options.record, status == .pass, !live.isEmpty {
                // Atomic: the old recording stays whole until the new one is complete.
                rerecorded = (try? await recorder.write(to: recorded.archive, comment: "trawl smoke --record \(recorded.recordingCase.input)")) != nil
            }
        }
        return SmokeResult(
            name: recorded.name, site: recorded.site, input: recorded.recordingCase.input, status: status, reasons: reasons,
            vanished: vanished, seconds: (clock.now - started).seconds, attempts: attempts,
            media: run.media.map { SmokeResult.Found(url: $0.url, still: $0.still, kind: $0.kind.rawValue) }, rerecorded: rerecorded)
    }

    /// Unreachable, or a 5xx page: the site is down rather than changed.
    static func isSiteDown(_ run: CaseRun) -> Bool {
        guard let error = run.error else { return false }
        if let fetch = error as? FetchError {
            return [.hostNotFound, .connectionFailed, .timedOut, .connectionLost, .tls].contains(fetch.code)
        }
        if let web = error as? WebError { return web.status >= 500 }
        if let search = error as? SearchError { return "\(search)".contains("HTTP 5") }
        return false
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
