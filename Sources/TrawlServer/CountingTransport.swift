import Foundation
import TrawlCore

/// Wraps the environment's transport to count what it does for `/metrics`: each fetch by
/// outcome (`ok`, `http-STATUS`, or the error's code) and each cache answer (`X-Trawl-Cache`).
struct CountingTransport: PayloadTransport {
    let base: any PayloadTransport
    let metrics: ServerMetrics

    func payloads(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        let base = self.base
        let metrics = self.metrics
        return AsyncThrowingStream(running: { continuation in
            var counted = false
            do {
                for try await payload in base.payloads(for: request, context: context) {
                    if !counted {
                        counted = true
                        metrics.recordFetch(outcome: payload.info.isSuccess || payload.info.status == 304 ? "ok" : "http-\(payload.info.status)")
                        if let served = payload.info.headers["x-trawl-cache"] { metrics.recordCacheLookup(result: served) }
                    }
                    continuation.yield(payload)
                }
            } catch {
                if !counted { metrics.recordFetch(outcome: ErrorSummary(error).code) }
                throw error
            }
        })
    }
}
