/// Looks at what a result set's media URLs answer — alive, animated, real size — and hands the
/// set on with ``Media/probe`` filled in (and, as it is configured, dead media left out or
/// claimed animations that are stills relabelled).
///
/// ``SearchProvider`` passes every set through the environment's checker before it yields the
/// set or tells the sink, so streams, the local index and every command see the same facts.
public protocol MediaChecker: Sendable {
    func check(_ set: ResultSet, for request: Request) async -> ResultSet
}
