import Foundation
package import TrawlCore

/// Carries out a ``FetchPolicy``'s retries and politeness around another transport: a
/// transient failure (``FetchFailure``) is tried again after its `Retry-After` or a jittered
/// backoff, up to ``FetchPolicy/retries`` times; a `Retry-After` holds the whole host; each
/// host gets at most ``FetchPolicy/perHost`` requests at once, ``FetchPolicy/delay`` apart.
///
/// When the retries run out (or the server asks for a wait over
/// ``FetchPolicy/maxWaitInRequest``) the last response is returned as it is — a 503 is still a
/// payload with status 503 — and the last transfer error is thrown.
package struct PolicyTransport: PayloadTransport {
    let base: any PayloadTransport
    let policy: FetchPolicy
    let timeline: Timeline
    let gate: HostGate

    package init(base: any PayloadTransport, policy: FetchPolicy, clock: any Clock<Duration> = ContinuousClock()) {
        self.base = base
        self.policy = policy
        timeline = Timeline(clock)
        gate = HostGate(perHost: policy.perHost, delay: policy.delay, timeline: timeline)
    }

    package func payloads(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        AsyncThrowingStream(running: { continuation in
            for payload in try await self.fetch(request, context: context) { continuation.yield(payload) }
        })
    }

    /// Every payload of the last attempt.
    private func fetch(_ request: FetchRequest, context: Request?) async throws -> [Payload] {
        let host = request.url.host.map { "\($0.lowercased()):\(request.url.port ?? -1)" }
        var attempt = 0
        while true {
            attempt += 1
            if let host { try await gate.enter(host) }
            var payloads: [Payload] = []
            var thrown: (any Error)?
            do {
                for try await payload in base.payloads(for: request, context: context) { payloads.append(payload) }
            } catch {
                thrown = error
            }
            if let host { await gate.leave(host) }

            let failure =
                thrown.flatMap(FetchFailure.init)
                ?? payloads.first.flatMap { FetchFailure(status: $0.info.status, headers: $0.info.headers, url: request.url.absoluteString) }
            if let failure, failure.isTransient, attempt <= policy.retries, !Task.isCancelled {
                let wait = policy.wait(after: failure, attempt: attempt)
                if wait <= policy.maxWaitInRequest {
                    if let host, let hold = policy.hold(after: failure) { await gate.hold(host, for: hold) }
                    try await timeline.sleep(for: wait)
                    continue
                }
            }
            if let thrown { throw thrown }
            return payloads
        }
    }
}
