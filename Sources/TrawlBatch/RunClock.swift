import Foundation
import TrawlFetch

/// A batch run's time in unix seconds (what the store keeps), read from the run's clock: the
/// wall clock in use, a test's clock in tests, so waits (backoff, `Retry-After`, delays) can be
/// stepped through without sleeping.
public struct RunClock: Sendable {
    private let origin: Double
    private let timeline: Timeline
    /// The clock read.
    public let base: any Clock<Duration>

    public init(_ clock: any Clock<Duration>) {
        origin = Date().timeIntervalSince1970
        timeline = Timeline(clock)
        base = clock
    }

    /// Now, in unix seconds.
    public var now: Double { origin + timeline.now.seconds }

    /// Suspends until ``now`` reads `unix`.
    public func sleep(until unix: Double) async throws {
        try await timeline.sleep(until: .seconds(max(0, unix - origin)))
    }
}
