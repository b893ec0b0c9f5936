import Foundation
import Trawl
import TrawlCore

/// Runs one resolve for the API: in a concurrency slot, under the request deadline, with its
/// `limit` applied, timed for `/metrics`. Ending the returned stream (or cancelling its reader)
/// cancels the work down to libcurl and the browser.
struct ResolveRun: Sendable {
    /// The provider for each kind of resolve: as pages claim their media, probed, probed
    /// keeping the dead.
    struct Providers: Sendable {
        var plain: SearchProvider
        var probing: SearchProvider
        var probingKeepingDead: SearchProvider

        func provider(for parameters: ResolveParameters) -> SearchProvider {
            guard parameters.probe else { return plain }
            return parameters.keepDead ? probingKeepingDead : probing
        }
    }

    let providers: Providers
    let slots: ResolveSlots
    let metrics: ServerMetrics
    let timeout: Duration

    func results(for parameters: ResolveParameters, client: String = "local") -> AsyncThrowingStream<ResultSet, any Error> {
        let provider = providers.provider(for: parameters)
        let slots = self.slots
        let metrics = self.metrics
        let timeout = self.timeout
        return AsyncThrowingStream(running: { continuation in
            let started = ContinuousClock.now
            do {
                try await RequestDeadline.run(timeout) {
                    try await slots.withSlot(client: client, metrics: metrics) {
                        metrics.resolvesInFlight.increment()
                        defer { metrics.resolvesInFlight.decrement() }
                        var count = 0
                        for try await set in provider.results(for: parameters.request) {
                            var set = set
                            if let limit = parameters.limit { set.media = Array(set.media.prefix(limit - count)) }
                            count += set.media.count
                            continuation.yield(set)
                            if let limit = parameters.limit, count >= limit { break }
                        }
                    }
                }
                metrics.recordResolve(duration: ContinuousClock.now - started, ok: true)
            } catch {
                metrics.recordResolve(duration: ContinuousClock.now - started, ok: false)
                throw error
            }
        })
    }

    /// Waits for the first result set (or the end, or an error) before the answer's head is
    /// sent, so that a resolve failing at once (a refused address, a host not found) gets its
    /// own HTTP status rather than `200` and an error line.
    /// - Returns: every result set, the first included.
    /// - Throws: the error the resolve ended with before its first result set.
    static func awaitingFirst(_ source: AsyncThrowingStream<ResultSet, any Error>) async throws -> AsyncThrowingStream<ResultSet, any Error> {
        let (output, continuation) = AsyncThrowingStream<ResultSet, any Error>.makeStream()
        let (started, signal) = AsyncThrowingStream<Void, any Error>.makeStream()
        let pump = Task {
            do {
                for try await set in source {
                    continuation.yield(set)
                    signal.finish()
                }
                continuation.finish()
                signal.finish()
            } catch {
                continuation.finish(throwing: error)
                signal.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in pump.cancel() }
        try await withTaskCancellationHandler {
            for try await _ in started {}
        } onCancel: {
            pump.cancel()
        }
        return output
    }
}
