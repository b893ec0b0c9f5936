import Foundation
public import TrawlCore

/// A transport that passes every payload through from another transport and records it.
public struct RecordingTransport: PayloadTransport {
    public let base: any PayloadTransport
    public let recorder: HARRecorder

    public init(base: any PayloadTransport, recorder: HARRecorder) {
        self.base = base
        self.recorder = recorder
    }

    public func payloads(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        let base = self.base
        let recorder = self.recorder
        return AsyncThrowingStream(running: { continuation in
            let started = Date()
            let clock = ContinuousClock()
            var last = clock.now
            for try await payload in base.payloads(for: request, context: context) {
                await recorder.record(payload, for: request, started: started, duration: clock.now - last)
                last = clock.now
                continuation.yield(payload)
            }
        })
    }
}
