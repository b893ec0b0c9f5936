import Trawl
import TrawlCore

/// `GET /v1/resolve`'s JSON answer: every media of the resolve, each file once, with the
/// field names `trawl resolve --json` prints.
///
/// ```json
/// {"degraded":false,"input":"https://…","media":[{"kind":"gif","url":"https://…",…}],"next":"offset:25","total":120}
/// ```
struct ResolveAnswer: Codable, Sendable, Hashable {
    var input: String
    var media: [MediaLine]
    /// Where the next page starts: pass it back as `cursor`.
    var next: String?
    var total: Int?
    /// `true` when `total` counts only part of the matches (`!local`, very common words).
    var totalIsLowerBound: Bool?
    /// Whether any media came from a fallback parser because the site's parser failed.
    var degraded: Bool
    var degradedReason: String?
    /// Set when the resolve failed after it had found some media (which are kept).
    var error: ErrorSummary?
    /// With `explain=true`: the candidates the ranking stage judged not the page's own.
    var dropped: [MediaLine]?

    /// Collects `sets`, merging media seen twice (``MediaCollection``).
    /// - Throws: the resolve's error when it found no media before failing.
    static func collect(_ sets: AsyncThrowingStream<ResultSet, any Error>, input: String) async throws -> ResolveAnswer {
        var collection = MediaCollection()
        var dropped = MediaCollection()
        var reasons: [Int: String] = [:]
        var answer = ResolveAnswer(input: Redaction.text(input), media: [], degraded: false)
        do {
            for try await set in sets {
                for media in set.media where collection.insert(media) {
                    if let reason = set.degradation?.reason { reasons[collection.count - 1] = reason }
                }
                if let candidates = set.dropped { dropped.insert(contentsOf: candidates) }
                answer.next = set.next?.token ?? answer.next
                if let total = set.total {
                    answer.total = total
                    answer.totalIsLowerBound = set.totalIsLowerBound
                }
                if let reason = set.degradation?.reason, !set.media.isEmpty {
                    answer.degraded = true
                    answer.degradedReason = answer.degradedReason ?? reason
                }
            }
        } catch {
            guard collection.count > 0 else { throw error }
            answer.error = ErrorStatus.apiError(for: error).summary
        }
        answer.media = collection.media.enumerated().map { index, media in
            MediaLine(media, input: input, degraded: reasons[index])
        }
        if dropped.count > 0 { answer.dropped = dropped.media.map { MediaLine($0, input: input, degraded: nil) } }
        return answer
    }
}
