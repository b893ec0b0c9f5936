import Testing

@testable import TrawlQueue
@testable import TrawlQueueWorker

/// When a committer writes its waiting finishes, without PostgreSQL: ``FinishGroups`` fed
/// events at made-up instants.
@Suite struct FinishGroupsTests {
    static let start = ContinuousClock.now
    static func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    typealias Groups = FinishGroups<Int>

    /// What happens to a committer: an outcome arrives, a flush is asked for, or its writer
    /// asks what to do next (and gets `step`).
    enum Beat: Sendable {
        case arrive(Int, at: Int, Groups.Arrival)
        case flush
        case ask(at: Int, Groups.Step)
    }

    /// Rows: a group size, a delay (ms), and what happens. Outcomes are numbered.
    @Test(
        arguments: [
            (
                "A full group goes at once; the writer stops when nothing waits", 3, 10,
                [
                    Beat.arrive(1, at: 0, .startWriter), .arrive(2, at: 0, .none), .arrive(3, at: 0, .cutWait),
                    .ask(at: 0, .write([1, 2, 3])), .ask(at: 1, .stop),
                    .arrive(4, at: 2, .startWriter),
                ]
            ),
            (
                "A group short of full waits for its oldest outcome's delay, then goes as it is", 3, 10,
                [
                    .arrive(1, at: 0, .startWriter), .ask(at: 0, .wait(until: at(10))),
                    .arrive(2, at: 5, .none), .ask(at: 10, .write([1, 2])), .ask(at: 10, .stop),
                ]
            ),
            (
                "Filling up during the wait cuts it short", 2, 10,
                [
                    .arrive(1, at: 0, .startWriter), .ask(at: 0, .wait(until: at(10))),
                    .arrive(2, at: 3, .cutWait), .ask(at: 3, .write([1, 2])), .ask(at: 3, .stop),
                ]
            ),
            (
                "Outcomes that arrive while a group is written go next, one writer at a time", 2, 10,
                [
                    .arrive(1, at: 0, .startWriter), .arrive(2, at: 0, .cutWait), .ask(at: 0, .write([1, 2])),
                    .arrive(3, at: 1, .none), .arrive(4, at: 1, .cutWait), .arrive(5, at: 2, .cutWait),
                    .ask(at: 4, .write([3, 4, 5])), .ask(at: 4, .stop),
                ]
            ),
            (
                "An outcome that waited its delay while a group was written goes without waiting", 4, 10,
                [
                    .arrive(1, at: 0, .startWriter), .ask(at: 0, .wait(until: at(10))), .ask(at: 10, .write([1])),
                    .arrive(2, at: 11, .none), .ask(at: 30, .write([2])), .ask(at: 30, .stop),
                ]
            ),
            (
                "A writer woken before its deadline sends what waits as it is", 4, 10,
                [
                    .arrive(1, at: 0, .startWriter), .ask(at: 0, .wait(until: at(10))), .ask(at: 4, .write([1])),
                ]
            ),
            (
                "A flush sends what waits without waiting for more", 4, 1000,
                [
                    .arrive(1, at: 0, .startWriter), .ask(at: 0, .wait(until: at(1000))),
                    .arrive(2, at: 1, .none), .flush, .ask(at: 2, .write([1, 2])),
                    .arrive(3, at: 3, .none), .ask(at: 3, .wait(until: at(1003))),
                ]
            ),
        ] as [(String, Int, Int, [Beat])])
    func finishGroups(_ name: String, group: Int, delay: Int, beats: [Beat]) {
        var groups = Groups(group: group, delay: .milliseconds(delay))
        for (index, beat) in beats.enumerated() {
            switch beat {
            case .arrive(let item, let instant, let expected):
                let arrival = groups.arrived(item, at: Self.at(instant))
                #expect(arrival == expected, "\(name): beat \(index)")
            case .flush:
                groups.flush()
            case .ask(let instant, let expected):
                let step = groups.next(now: Self.at(instant))
                #expect(step == expected, "\(name): beat \(index)")
            }
        }
    }
}
