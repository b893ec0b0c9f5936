import Foundation
public import TrawlCore

/// How a run of a case went: the result the smoke test reports per site.
public struct CaseVerdict: Sendable, Hashable, CustomStringConvertible {
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// Every expectation met, by the parser that should meet them.
        case pass
        /// Expectations met, but only because a fallback answered after the site parser failed.
        case degraded
        /// An expectation not met, or the run failed.
        case fail
    }

    public var outcome: Outcome
    /// What was wrong (for `fail`) or what degraded (for `degraded`).
    public var reasons: [String]
    /// How many results the run produced.
    public var resultCount: Int
    /// A failure only because results lack fields the case requires (the smoke run calls
    /// that degraded: the media are there, the site dropped details).
    public var onlyFieldsMissing: Bool
    /// Every expectation was met, but only through a fallback parser after the site parser
    /// failed (the outcome is `degraded` where the case allows it, `fail` where it does not).
    public var metByFallback: Bool
    /// How each fallback came to answer, when ``metByFallback``.
    public var degradations: [Degradation]

    public init(
        outcome: Outcome, reasons: [String] = [], resultCount: Int = 0, onlyFieldsMissing: Bool = false,
        metByFallback: Bool = false, degradations: [Degradation] = []
    ) {
        self.outcome = outcome
        self.reasons = reasons
        self.resultCount = resultCount
        self.onlyFieldsMissing = onlyFieldsMissing
        self.metByFallback = metByFallback
        self.degradations = degradations
    }

    public var description: String {
        reasons.isEmpty
            ? "\(outcome) (\(Counted(resultCount, "result")))" : "\(outcome) (\(Counted(resultCount, "result"))): " + reasons.joined(separator: "; ")
    }

    /// Judges the result sets a case's run produced (`error` if it threw) against its expectation.
    public static func judge(_ sets: [ResultSet], error: (any Error)? = nil, against expect: RecordingCase.Expectation) -> CaseVerdict {
        let media = MediaCollection(sets.flatMap(\.media)).media
        var problems: [String] = []
        if let error { problems.append("the run failed: \(ErrorSentence.describe(error))") }
        if media.count < expect.minResults { problems.append("\(Counted(media.count, "result")), at least \(expect.minResults) expected") }
        if let max = expect.maxResults, media.count > max { problems.append("\(Counted(media.count, "result")), at most \(max) expected") }
        let urls = media.flatMap(\.allURLs)
        for match in expect.media where !match.matches(any: urls) { problems.append("missing \(match)") }
        if expect.isLoose {
            // A live case: the site's media, wherever on its media hosts they are today.
            let wanted = max(expect.minResults, 1)
            let matching = media.filter(expect.looselyMatches).count
            if matching < wanted {
                let elsewhere = Set(urls.compactMap { URL(string: $0)?.host?.lowercased() }).sorted()
                problems.append(
                    "\(Counted(matching, "result")) of \(expect.looseDescription), at least \(wanted) expected"
                        + (elsewhere.isEmpty ? "" : " (media found on \(elsewhere.joined(separator: ", ")))"))
            }
        }
        let structural = problems.count
        for field in expect.fields {
            let lacking = media.filter { !field.isPresent(in: $0) }
            if !lacking.isEmpty {
                problems.append("\(lacking.count) of \(Counted(media.count, "result")) \(lacking.count == 1 ? "lacks" : "lack") \(field.rawValue)")
            }
        }
        let degradations = sets.compactMap(\.degradation)
        if !problems.isEmpty {
            return CaseVerdict(
                outcome: .fail, reasons: problems + degradations.map { "\($0)" }, resultCount: media.count, onlyFieldsMissing: structural == 0)
        }
        guard degradations.isEmpty else {
            let why = degradations.map { "\($0)" }
            return CaseVerdict(
                outcome: expect.status == .pass ? .fail : .degraded,
                reasons: (expect.status == .pass ? ["degraded where the site parser must answer"] : []) + why, resultCount: media.count,
                metByFallback: true, degradations: degradations)
        }
        return CaseVerdict(outcome: .pass, resultCount: media.count)
    }
}
