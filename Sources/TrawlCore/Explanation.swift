/// Why the ranking stage kept or dropped a media: the rule that decided, read with the
/// media's ``Media/evidence``. Shown by `trawl resolve --explain` and in its JSON.
public struct Explanation: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Verdict: String, Sendable, Hashable, Codable {
        case kept, dropped
    }

    public var verdict: Verdict
    /// The rule's stable name (`named-by-page`, `no-evidence-beyond-extension`, …).
    public var rule: String

    public init(_ verdict: Verdict, rule: String) {
        self.verdict = verdict
        self.rule = rule
    }

    public var description: String { "\(verdict.rawValue): \(rule)" }
}
