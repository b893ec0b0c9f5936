import TrawlCore
import TrawlRecordings

/// A case's smoke status from its verdict (the judge replayed runs get too): one status per
/// case, and reasons only where the status is not a pass, so no case reads as both.
struct SmokeGrade: Sendable, Hashable {
    var status: SmokeStatus
    var reasons: [String]
    var notes: [String]

    init(_ verdict: CaseVerdict, expect: RecordingCase.Expectation) {
        switch verdict.outcome {
        case .pass:
            self.init(status: .pass, reasons: [], notes: [])
        case .degraded:
            // Only a drift case (`"status": "degraded"`) allows it: its fallback answering is its pass.
            self.init(status: .pass, reasons: [], notes: verdict.degradations.map(Self.expectedFallback))
        case .fail where verdict.metByFallback || verdict.onlyFieldsMissing:
            // The media are there, through a fallback or without some fields: the site changed, Trawl coped.
            self.init(status: .degraded, reasons: verdict.reasons, notes: [])
        case .fail:
            self.init(status: .fail, reasons: verdict.reasons, notes: [])
        }
    }

    init(status: SmokeStatus, reasons: [String], notes: [String]) {
        self.status = status
        self.reasons = reasons
        self.notes = notes
    }

    /// A drift case's expected fallback, said without calling a pass degraded.
    static func expectedFallback(_ degradation: Degradation) -> String {
        let failed = degradation.failures.map { "\($0.parser): \($0.reason)" }.joined(separator: "; ")
        return "drift case: \(degradation.answeredBy) answered as expected (\(failed))"
    }
}
