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
    private let renderedPage = Mutex(false)
    private let failedRender = Mutex<ErrorSummary?>(nil)

    var document: First? { first.withLock { $0 } }
    /// The page was rendered in the browser (its DOM snapshot came through).
    var rendered: Bool { renderedPage.withLock { $0 } }

    /// Why rendering the page failed, when it did (the engine then keeps its static result).
    var renderFailure: ErrorSummary? { failedRender.withLock { $0 } }

    func noteRendered() { renderedPage.withLock { $0 = true } }

    func noteRenderFailure(_ error: any Error) { failedRender.withLock { $0 = ErrorSummary(error) } }

    func note(_ info: PayloadInfo) {
        let latency = (ContinuousClock.now - started).seconds
        first.withLock { if $0 == nil { $0 = First(status: info.status, headers: info.headers, latency: latency) } }
    }
}

/// A renderer that tells a ``ResponseLog`` when it rendered the page (its DOM arrived).
struct LoggedRenderer: PageRenderer {
    let base: any PageRenderer
    let log: ResponseLog

    func plan(for url: URL) async -> RenderPlan { await base.plan(for: url) }
    func shouldRender(afterStatic document: Payload?, url: URL) async -> Bool { await base.shouldRender(afterStatic: document, url: url) }
    func learn(url: URL, neededBrowser: Bool) async { await base.learn(url: url, neededBrowser: neededBrowser) }

    func render(_ request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        let base = self.base
        let log = self.log
        return AsyncThrowingStream(running: { continuation in
            do {
                for try await payload in base.render(request, context: context) {
                    if payload.info.origin == .domSnapshot { log.noteRendered() }
                    continuation.yield(payload)
                }
            } catch {
                if !(error is CancellationError) { log.noteRenderFailure(error) }
                throw error
            }
        })
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

    /// Each response of a streamed answer is noted at its head.
    func parts(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<ResponsePart, any Error> {
        let log = self.log
        return base.parts(for: request, context: context).observing { part in
            switch part {
            case .head(let info, _): log.note(info)
            case .whole(let payload): log.note(payload.info)
            case .body, .end: break
            }
        }
    }
}
