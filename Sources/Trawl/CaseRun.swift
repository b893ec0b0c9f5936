import Foundation
import TrawlCore
import TrawlRecordings

/// One run of a case: what came out and how it compares with what the case expects.
public struct CaseRun: Sendable {
    public var recordedCase: RecordedCase
    public var sets: [ResultSet]
    public var error: (any Error)?
    public var verdict: CaseVerdict

    public var media: [Media] { MediaCollection(sets.flatMap(\.media)).media }
}

extension Trawl {
    /// Runs a case through the whole pipeline (provider → engine → payloads → parser chain)
    /// over its own recording, or live when `replay` is false (the smoke test).
    public static func run(
        _ recordedCase: RecordedCase, replay: Bool = true, configuration: Configuration = .init(), recorder: HARRecorder? = nil
    ) async -> CaseRun {
        var configuration = configuration
        configuration.recorder = recorder
        var sets: [ResultSet] = []
        var failure: (any Error)?
        do {
            if replay { configuration.replay = try Replay(path: recordedCase.archive) }
            let provider = makeProvider(configuration)
            let recorded = recordedCase.recordingCase
            let request = Request(recorded.input, pagination: recorded.page.flatMap(Pagination.init(token:)) ?? .start)
            for try await set in await provider.results(for: request) { sets.append(set) }
        } catch {
            failure = error
        }
        let verdict = CaseVerdict.judge(sets, error: failure, against: recordedCase.recordingCase.expect)
        return CaseRun(recordedCase: recordedCase, sets: sets, error: failure, verdict: verdict)
    }
}
