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

    /// The parts of the last attempt, streamed: a response is judged by its head (a 503 is
    /// retried before its body is read), and a transfer that fails part way through its body is
    /// tried again from a new head, which makes the reader drop what it had of the old one (see
    /// ``ResponsePart/head(_:expectedLength:)``).
    package func parts(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<ResponsePart, any Error> {
        let reader = PolicyParts(transport: self, request: request, context: context)
        return AsyncThrowingStream(unfolding: { try await reader.next() })
    }

    /// How long to wait before trying `failure`'s request again after attempt `attempt`; `nil`
    /// when it is not tried again.
    fileprivate func retryWait(after failure: FetchFailure, attempt: Int) -> Duration? {
        guard failure.isTransient, attempt <= policy.retries, !Task.isCancelled else { return nil }
        let wait = policy.wait(after: failure, attempt: attempt)
        return wait <= policy.maxWaitInRequest ? wait : nil
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

/// One request's parts through a ``PolicyTransport``, pulled by the consumer.
private actor PolicyParts {
    let transport: PolicyTransport
    let request: FetchRequest
    let context: Request?
    let host: String?
    private var attempt = 0
    private var parts: AsyncThrowingStream<ResponsePart, any Error>.AsyncIterator?
    private var inGate = false
    private var finished = false

    init(transport: PolicyTransport, request: FetchRequest, context: Request?) {
        self.transport = transport
        self.request = request
        self.context = context
        host = request.url.host.map { "\($0.lowercased()):\(request.url.port ?? -1)" }
    }

    deinit {
        // A reader that stopped part way: its place at the host is given back.
        if inGate, let host { Task { [gate = transport.gate] in await gate.leave(host) } }
    }

    func next() async throws -> ResponsePart? {
        guard !finished else { return nil }
        while true {
            if parts == nil {
                attempt += 1
                if let host { try await transport.gate.enter(host) }
                inGate = true
                parts = transport.base.parts(for: request, context: context).makeAsyncIterator()
            }
            let part: ResponsePart?
            do {
                part = try await pull()
            } catch {
                await leave()
                if let failure = FetchFailure(error), let wait = transport.retryWait(after: failure, attempt: attempt) {
                    try await pause(wait, after: failure)
                    continue
                }
                finished = true
                throw error
            }
            let info: PayloadInfo?
            switch part {
            case nil:
                await leave()
                finished = true
                return nil
            case .head(let head, _)?: info = head
            case .whole(let payload)?: info = payload.info
            case .body?, .end?: return part
            }
            if let info, let failure = FetchFailure(status: info.status, headers: info.headers, url: request.url.absoluteString),
                let wait = transport.retryWait(after: failure, attempt: attempt)
            {
                // The answer is not kept: its body is read to the end (or its transfer
                // dropped) before the next attempt.
                while (try? await pull()) ?? nil != nil {}
                await leave()
                try await pause(wait, after: failure)
                continue
            }
            return part
        }
    }

    private func pull() async throws -> ResponsePart? {
        // Out of the property for the call: one `next()` runs at a time (the stream's consumer
        // waits for each part before it asks for the next).
        guard var iterator = parts else { return nil }
        defer { parts = iterator }
        return try await iterator.next(isolation: self)
    }

    private func leave() async {
        parts = nil
        guard inGate else { return }
        inGate = false
        if let host { await transport.gate.leave(host) }
    }

    private func pause(_ wait: Duration, after failure: FetchFailure) async throws {
        if let host, let hold = transport.policy.hold(after: failure) { await transport.gate.hold(host, for: hold) }
        try await transport.timeline.sleep(for: wait)
    }
}
