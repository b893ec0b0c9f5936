import Foundation
import Testing
import TrawlCore
import TrawlFetch
import TrawlTesting

/// The one classification of failures, and the backoff's full jitter.
@Suite("Failure classification")
struct FetchFailureTests {
    @Test("Statuses: 2xx is no failure; 5xx, 408, 429 are transient; other 4xx permanent; codes are http-STATUS")
    func statuses() {
        #expect(FetchFailure(status: 200, url: "http://a.test/") == nil)
        #expect(FetchFailure(status: 204, url: "http://a.test/") == nil)
        for status in [500, 502, 503, 504, 408, 429] {
            let failure = FetchFailure(status: status, url: "http://a.test/")
            #expect(failure?.kind == .transient, "\(status)")
            #expect(failure?.code == "http-\(status)")
            #expect(failure?.status == status)
        }
        for status in [400, 401, 403, 404, 410, 304] {
            #expect(FetchFailure(status: status, url: "http://a.test/")?.kind == .permanent, "\(status)")
        }
    }

    @Test("Retry-After counts on 429 and 503 only, as seconds or an HTTP date")
    func retryAfter() {
        #expect(FetchFailure(status: 503, headers: ["Retry-After": "7"], url: "u")?.retryAfter == .seconds(7))
        #expect(FetchFailure(status: 429, headers: ["Retry-After": " 2 "], url: "u")?.retryAfter == .seconds(2))
        #expect(FetchFailure(status: 500, headers: ["Retry-After": "7"], url: "u")?.retryAfter == nil)
        #expect(FetchFailure(status: 503, headers: ["Retry-After": "soon"], url: "u")?.retryAfter == nil)
        let now = Date(timeIntervalSince1970: 1_794_304_800)  // Tue, 10 Nov 2026 10:00:00 GMT
        let dated = FetchFailure(status: 503, headers: ["Retry-After": "Tue, 10 Nov 2026 10:01:30 GMT"], url: "u", now: now)
        #expect(dated?.retryAfter == .seconds(90))
        #expect(RetryAfter.parse("Tue, 10 Nov 2026 09:00:00 GMT", now: now) == .zero)
    }

    @Test("Transfer errors by code: stable kebab-case identifiers, transient where another try may pass")
    func errors() {
        let identifiers = FetchError.Code.all.map(\.identifier)
        #expect(Set(identifiers).count == identifiers.count)
        #expect(identifiers.allSatisfy { $0.allSatisfy { $0.isLowercase || $0 == "-" } })
        let expected: [(FetchError.Code, String, Bool)] = [
            (.timedOut, "timed-out", true), (.hostNotFound, "host-not-found", true), (.connectionFailed, "connection-failed", true),
            (.connectionLost, "connection-lost", true), (.transferFailed, "transfer-failed", true),
            (.invalidURL, "invalid-url", false), (.bodyTooLarge, "body-too-large", false), (.cacheMiss, "not-in-cache", false),
            (.cancelled, "cancelled", false), (.tls, "tls-failure", false),
        ]
        for (code, identifier, transient) in expected {
            let failure = FetchFailure(FetchError(code, url: "http://a.test/?key=secret", message: "m"))
            #expect(failure?.code == identifier)
            #expect(failure?.isTransient == transient, "\(identifier)")
            #expect(failure?.message.contains("secret") == false)
        }
        #expect(FetchFailure(CancellationError()) == nil)
    }

    @Test("Full jitter: the wait is drawn from zero to the ceiling, which doubles up to the maximum")
    func fullJitter() {
        let backoff = Backoff(first: .seconds(1), maximum: .seconds(5))
        #expect((1...5).map { backoff.ceiling(afterAttempt: $0) } == [.seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5)])
        #expect(backoff.delay(afterAttempt: 3, draw: 0) == .zero)
        #expect(backoff.delay(afterAttempt: 3, draw: 0.25) == .seconds(1))
        #expect(backoff.delay(afterAttempt: 3, draw: 1) == .seconds(4))
        // Drawn from a seeded generator: every wait within [0, 2 s], and the lower half used
        // as much as the upper (a draw from [c/2, c] would never go below 1 s).
        var generator = SplitMix64(seed: 15)
        let waits = (0..<1000).map { _ in backoff.delay(afterAttempt: 2, using: &generator) }
        #expect(waits.allSatisfy { $0 >= .zero && $0 <= .seconds(2) })
        #expect((400...600).contains(waits.filter { $0 < .seconds(1) }.count))
        // The policy's random source picks the point, for every command alike.
        var policy = FetchPolicy()
        policy.random = { 0.5 }
        let failure = FetchFailure(status: 502, url: "u")!
        #expect(policy.wait(after: failure, attempt: 2) == .seconds(1))
        let limited = FetchFailure(status: 429, headers: ["Retry-After": "3600"], url: "u")!
        policy.maxBackoff = .seconds(60)
        #expect(policy.wait(after: limited, attempt: 1) == .seconds(60))
    }
}
