/// How many batches the server runs and keeps, and for how long.
///
/// Each batch holds a job store, a list and a results file: a few descriptors while it runs,
/// and disk until it is deleted. Without bounds a client could post batches until the server
/// runs out of either.
public struct BatchLimits: Sendable, Hashable {
    /// Batches running at once on the server; one more is `503 server-busy`.
    public var maxRunning = 16
    /// Batches one client may have running at once; one more is `429 too-many-batches`.
    public var maxRunningPerClient = 4
    /// Batches the server keeps (running, finished or stopped); one more is `503 server-busy`.
    public var maxStored = 1000
    /// Batches one client may keep; one more is `429 too-many-batches`.
    public var maxStoredPerClient = 100
    /// A finished or failed batch is deleted this long after it finished; `nil`: kept until
    /// deleted (`DELETE /v1/batches/{id}`).
    public var timeToLive: Duration? = .seconds(24 * 3600)

    public init() {}
}
