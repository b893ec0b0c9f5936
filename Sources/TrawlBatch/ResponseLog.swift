import Foundation
import Synchronization
import TrawlCore

/// Notes the first response a job's work received (its document), so the batch can tell a
/// 429 from a 404 from a page without media, whatever the engine made of it.
final class ResponseLog: Sendable {
    struct First: Sendable {
        var status: Int
        var headers: HTTPHeaders
        /// Seconds from the start of the attempt to the response.
        var latency: Double
    }

    private let started = ContinuousClock.now
    private let first = Mutex<First?>(nil)

    var document: First? { first.withLock { $0 } }

    func note(_ info: PayloadInfo) {
        let latency = (ContinuousClock.now - started).seconds
        first.withLock { if $0 == nil { $0 = First(status: info.status, headers: info.headers, latency: latency) } }
    }
}

/// A transport that tells a ``ResponseLog`` about each response passing through.
struct LoggedTransport: PayloadTransport {
    let base: any PayloadTransport
    let log: ResponseLog

    func payloads(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        let base = self.base
        let log = self.log
        return AsyncThrowingStream(running: { continuation in
            for try await payload in base.payloads(for: request, context: context) {
                log.note(payload.info)
                continuation.yield(payload)
            }
        })
    }
}
