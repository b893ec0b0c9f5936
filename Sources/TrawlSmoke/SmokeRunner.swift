package import Foundation
import Trawl
import TrawlCore
import TrawlFetch
package import TrawlRecordings

/// Runs the cases under a recordings folder live against the sites (the nightly smoke test), or
/// replayed, and grades each: pass, degraded, fail or skipped.
///
/// ```swift
/// var options = SmokeOptions()
/// options.sites = ["giphy"]
/// let results = try await SmokeRunner(options: options).run(recordings: URL(fileURLWithPath: "Recordings"))
/// let report = SmokeReport(results: results)
/// ```
package struct SmokeRunner: Sendable {
    package var options: SmokeOptions

    package init(options: SmokeOptions = SmokeOptions()) {
        self.options = options
    }

    /// Every case under `recordings` (filtered by ``SmokeOptions/sites``): live cases live, or
    /// every case replayed with ``SmokeOptions/replay``. Synthetic cases never go live.
    /// - Throws: ``RecordingError`` for a malformed case file.
    package func run(recordings: URL) async throws -> [SmokeResult] {
        let cases = try RecordedCase.all(in: recordings)
            .filter { options.sites.isEmpty || options.sites.contains($0.site) }
            .filter { options.replay || !$0.recordingCase.synthetic }  // modelled pages do not exist live
        var results: [SmokeResult] = []
        for recorded in cases { results.append(await run(recorded)) }
        return results
    }

    /// One case, with up to ``SmokeOptions/retries`` more attempts while its site looks down.
    package func run(_ recorded: RecordedCase) async -> SmokeResult {
        let clock = ContinuousClock()
        let started = clock.now
        func result(_ grade: SmokeGrade, attempts: Int, run: CaseRun? = nil, vanished: [String] = [], rerecorded: Bool = false) -> SmokeResult {
            SmokeResult(
                name: recorded.name, site: recorded.site, input: recorded.recordingCase.input, status: grade.status,
                reasons: grade.reasons, notes: grade.notes, vanished: vanished, seconds: (clock.now - started).seconds, attempts: attempts,
                media: (run?.media ?? []).map { SmokeResult.Found(url: $0.url, still: $0.still, kind: $0.kind.rawValue, probe: $0.probe) },
                rerecorded: rerecorded)
        }
        if options.replay && !recorded.hasRecording {
            // Not a replay case: it has never been recorded.
            return result(SmokeGrade(status: .skipped, reasons: [SkipReason.notRecorded.message], notes: []), attempts: 0)
        }

        var attempts = 0
        var run: CaseRun
        var recorder: HARRecorder
        var skip: SkipReason?
        repeat {
            attempts += 1
            recorder = HARRecorder()
            var configuration = TrawlConfiguration(
                loader: LoaderConfiguration(
                    userAgent: options.userAgent, timeout: options.timeout, connectTo: options.connectTo, addressPolicy: options.addressPolicy))
            configuration.plainHTTP = options.plainHTTP
            configuration.search = options.search
            configuration.browser = options.browser
            configuration.browserConfiguration = options.browserConfiguration
            if !options.replay { configuration.sink = options.sink }
            if var probe = options.probe {
                probe.keepDead = true
                configuration.probe = probe
            }
            run = await CaseRun(recorded, replay: options.replay, configuration: configuration, recorder: options.replay ? nil : recorder)
            let statuses = await recorder.recorded.map(\.response.status)
            skip = SkipReason.of(run.error, statuses: statuses)
        } while skip?.retry == true && attempts <= options.retries

        if let skip {
            let message = skip.retry ? "\(skip.message) (\(attempts == 1 ? "1 attempt" : "\(attempts) attempts"))" : skip.message
            return result(SmokeGrade(status: .skipped, reasons: [message], notes: []), attempts: attempts, run: run)
        }
        var grade = SmokeGrade(run.verdict, expect: recorded.recordingCase.expect)
        if options.probe != nil {
            let dead = Self.deadMedia(run.media)
            if !dead.isEmpty {
                grade = SmokeGrade(status: .fail, reasons: grade.reasons + dead, notes: [])
            }
        }
        var vanished: [String] = []
        var rerecorded = false
        if !options.replay {
            let live = await recorder.recorded
            if grade.status != .pass, recorded.hasRecording, let old = try? HAR.read(from: recorded.archive) {
                vanished = PayloadDiff.vanished(recorded: old.log.entries, live: live)
            }
            if options.record, grade.status == .pass, !live.isEmpty {
                // Atomic: the old recording stays whole until the new one is complete.
                rerecorded = (try? await recorder.write(to: recorded.archive, comment: "trawl smoke --record \(recorded.recordingCase.input)")) != nil
            }
        }
        return result(grade, attempts: attempts, run: run, vanished: vanished, rerecorded: rerecorded)
    }
}

extension SmokeRunner {
    /// A reason for each dead media (or probed rendition) of `media`: `dead media: URL (HTTP 404)`.
    static func deadMedia(_ media: [Media]) -> [String] {
        func reason(_ url: String, _ probe: MediaProbe) -> String {
            let why =
                probe.status == 404 || probe.status == 410
                ? "HTTP \(probe.status)" : "not media: \(probe.contentType ?? "no content type")"
            return "dead media: \(url) (\(why))"
        }
        var reasons: [String] = []
        for item in media {
            if let probe = item.probe, probe.dead { reasons.append(reason(item.url, probe)) }
            for rendition in item.renditions {
                if let probe = rendition.probe, probe.dead { reasons.append(reason(rendition.url, probe)) }
            }
        }
        return reasons
    }
}
