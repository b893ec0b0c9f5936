import Testing

@testable import TrawlQueue

/// How a store waits out an outage, without PostgreSQL: ``OutageStateMachine`` fed events at
/// made-up instants.
@Suite struct OutageStateMachineTests {
    static let start = ContinuousClock.now
    static func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    @Test func anOutageIsProbedWithBackoffUntilTheServerAnswers() {
        var link = OutageStateMachine()
        #expect(!link.isOut)
        #expect(link.nextProbe == nil, "no outage, no probe")
        var lost = link.lost(now: Self.at(0))
        #expect(lost == .opened)
        #expect(link.isOut && link.mustWait)
        lost = link.lost(now: Self.at(1))
        #expect(lost == .none, "one outage, one probe, however many operations lose their connection")
        // Probes 0.1, 0.2, 0.4 s apart (at their upper bound), the server still down.
        for attempt in 0..<3 {
            #expect(link.nextProbe == attempt)
            #expect(OutageStateMachine.delay(before: attempt, jitter: 1) == [0.1, 0.2, 0.4][attempt])
            let probing = link.probing()
            #expect(probing)
        }
        var reached = link.reached()
        #expect(reached)
        #expect(!link.isOut && !link.mustWait, "operations go through once the probe has reached the server")
        // An operation loses its connection again before any succeeded: the backoff goes on.
        lost = link.lost(now: Self.at(900))
        #expect(lost == .probeAgain)
        #expect(link.isOut)
        #expect(link.nextProbe == 3)
        var probing = link.probing()
        #expect(probing)
        reached = link.reached()
        #expect(reached)
        let ended = link.succeeded(now: Self.at(2000))
        #expect(ended?.attempts == 4)
        #expect(ended?.since == Self.at(0))
        let again = link.succeeded(now: Self.at(2001))
        #expect(again == nil, "the first success ends it; the rest find none")
        #expect(link.figures == QueueStore.Outages(count: 1, attempts: 4))
        #expect(link.recovered(within: .seconds(30), now: Self.at(2000 + 29_000)))
        #expect(!link.recovered(within: .seconds(30), now: Self.at(2000 + 30_000)), "no reaping for a lease's length, then as usual")
        #expect(link.nextProbe == nil, "a probe left running stops")
        probing = link.probing()
        #expect(!probing)
        lost = link.lost(now: Self.at(40_000))
        #expect(lost == .opened)
        #expect(link.nextProbe == 0, "a new outage starts its backoff again")
        #expect(link.figures.count == 2)
    }

    @Test(arguments: [(0, 0.1), (1, 0.2), (5, 3.2), (6, 5.0), (40, 5.0)])
    func probesBackOffToFiveSeconds(attempt: Int, delay: Double) {
        #expect(abs(OutageStateMachine.delay(before: attempt, jitter: 1) - delay) < 1e-9)
        #expect(abs(OutageStateMachine.delay(before: attempt, jitter: 0.5) - delay / 2) < 1e-9, "jitter keeps a delay in its upper half")
    }

    @Test func aClosedLinkNeitherWaitsNorProbes() {
        var link = OutageStateMachine()
        var lost = link.lost(now: Self.at(0))
        #expect(lost == .opened)
        link.close()
        #expect(!link.mustWait)
        let probing = link.probing()
        #expect(!probing)
        lost = link.lost(now: Self.at(1))
        #expect(lost == .none)
    }
}
