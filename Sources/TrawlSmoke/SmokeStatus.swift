/// The status of one case in a smoke run.
package enum SmokeStatus: String, Sendable, Codable, Hashable, CaseIterable, Comparable {
    /// The site parser met every expectation (or, for a drift case, the fallback it expects did).
    case pass
    /// Met only through a fallback parser, or with fields missing: the site changed, Trawl coped.
    case degraded
    /// Expectations not met, or a parse error: the site changed and Trawl did not cope.
    case fail
    /// Not checked: the site was unreachable or answered 5xx/429 after every retry, the case
    /// needs a key that is not set, or (replayed) a live case has no recording yet. Not a
    /// parser bug.
    case skipped

    package static func < (a: SmokeStatus, b: SmokeStatus) -> Bool { a.rank < b.rank }

    private var rank: Int {
        switch self {
        case .pass: 0
        case .skipped: 1
        case .degraded: 2
        case .fail: 3
        }
    }
}
