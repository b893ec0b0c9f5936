import Foundation
import TrawlBrowser
import TrawlCore
import TrawlRecordings

/// One run of a case: what came out and how it compares with what the case expects.
public struct CaseRun: Sendable {
    public var recordedCase: RecordedCase
    public var sets: [ResultSet]
    public var error: (any Error)?
    public var verdict: CaseVerdict

    public var media: [Media] { MediaCollection(sets.flatMap(\.media)).media }
    /// The warnings the run's result sets carried (a render that failed, a follow-up that did):
    /// what a failing case's line should say beside its verdict.
    public var warnings: [String] { sets.flatMap(\.diagnostics).filter { $0.level == .warning }.map(\.description) }
}

extension CaseRun {
    /// Runs a case through the whole pipeline (provider → engine → payloads → parser chain)
    /// over its own recording, or live when `replay` is false (the smoke test).
    ///
    /// A case that needs a browser (its `browser` field) gets one — `auto` unless the
    /// configuration says `always` — replayed from its recording like every other request; any
    /// other replayed case never starts a browser. The browser is shut down when the run ends.
    public init(
        _ recordedCase: RecordedCase, replay: Bool = true, configuration: TrawlConfiguration = .init(), recorder: HARRecorder? = nil
    ) async {
        var configuration = configuration
        configuration.recorder = recorder
        if recordedCase.recordingCase.browser {
            if configuration.browser == .never { configuration.browser = .auto }
            if replay {
                // A replay has no network to wait for: the browser's limits are there to stop a
                // hang, and on a machine busy with other work (a test suite beside it) Chromium's
                // start alone can pass the live defaults.
                var browser = configuration.browserConfiguration
                browser.commandTimeout = max(browser.commandTimeout, .seconds(60))
                browser.pageBudget = max(browser.pageBudget, .seconds(60))
                configuration.browserConfiguration = browser
            }
        } else if replay {
            configuration.browser = .never
        }
        var sets: [ResultSet] = []
        var failure: (any Error)?
        var pool: BrowserPool?
        do {
            if replay { configuration.replay = try TrawlConfiguration.Replay(path: recordedCase.archive) }
            let environment = Environment(configuration)
            pool = (environment.renderer as? AdaptiveRenderer)?.pool
            let provider = SearchProvider(environment: environment, search: configuration.searchForReplay)
            let recorded = recordedCase.recordingCase
            let request = Request(recorded.input, pagination: recorded.page.flatMap(Pagination.init(token:)) ?? .start)
            for try await set in provider.results(for: request) { sets.append(set) }
        } catch {
            failure = error
        }
        await pool?.shutdown()
        let verdict = CaseVerdict.judge(sets, error: failure, against: recordedCase.recordingCase.expect)
        self.init(recordedCase: recordedCase, sets: sets, error: failure, verdict: verdict)
    }
}
