import Foundation
import Synchronization
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

    /// The same counts over a streamed response: the first head (or whole payload) is counted,
    /// or the error when none came.
    func parts(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<ResponsePart, any Error> {
        let metrics = self.metrics
        let counted = CountedOnce()
        @Sendable func count(_ info: PayloadInfo) {
            guard counted.first() else { return }
            metrics.recordFetch(outcome: info.isSuccess || info.status == 304 ? "ok" : "http-\(info.status)")
            if let served = info.headers["x-trawl-cache"] { metrics.recordCacheLookup(result: served) }
        }
        return base.parts(for: request, context: context).observing(
            { part in
                switch part {
                case .head(let info, _): count(info)
                case .whole(let payload): count(payload.info)
                case .body, .end: break
                }
            },
            failed: { error in
                if counted.first() { metrics.recordFetch(outcome: ErrorSummary(error).code) }
            })
    }
}

/// True the first time it is asked, false after.
private final class CountedOnce: Sendable {
    private let done = Atomic<Bool>(false)
    func first() -> Bool { !done.exchange(true, ordering: .relaxed) }
}
