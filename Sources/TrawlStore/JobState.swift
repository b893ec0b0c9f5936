/// Where a batch job is in its life.
///
/// ```
/// pending ──claim──▶ running ──▶ done
///    ▲                  │    └──▶ failed
///    └── retry-later ◀──┘ (transient failure, 429/503; claimed again after its time)
/// ```
/// A `running` job found by a later run belongs to a run that died: it goes back to `pending`.
public enum JobState: String, Sendable, Hashable, CaseIterable, Codable {
    case pending
    case running
    case done
    case failed
    case retryLater = "retry-later"

    /// The job has its final answer.
    public var isFinal: Bool { self == .done || self == .failed }
}
