import Synchronization

/// How far a transfer may run ahead of its reader: the body bytes handed on that the reader has
/// not taken yet. Past ``highWater`` the transfer pauses — its write callback answers
/// `CURL_WRITEFUNC_PAUSE`, libcurl stops reading the socket and the server waits on a full
/// connection — and once the reader has taken it down to ``lowWater`` the transfer resumes. A
/// body then sits in memory about a megabyte at a time, however slow its reader and fast its
/// server.
///
/// Shared by the event loop's thread, which hands bytes on and pauses, and the reader's task,
/// which takes them and asks for the resume. Both touch only the two atomics; the pause flag
/// passes between them by compare-and-exchange, so each pause is followed by exactly one resume
/// and none is lost when the reader catches up while the loop is deciding to pause.
final class TransferWindow: Sendable {
    /// Unread bytes at which the transfer pauses.
    static let highWater = 4 * CurlTransfer.pieceSize
    /// Unread bytes at which a paused transfer resumes.
    static let lowWater = CurlTransfer.pieceSize

    private let unread = Atomic<Int>(0)
    private let paused = Atomic<Bool>(false)

    /// The loop handed `count` bytes on (before the reader can see them).
    func handedOn(_ count: Int) {
        unread.add(count, ordering: .sequentiallyConsistent)
    }

    /// Asked by the loop before it takes more bytes: whether the transfer pauses now. `true`
    /// promises that a later ``taken(_:)`` answers `true` once, which resumes it.
    func shouldPause() -> Bool {
        guard unread.load(ordering: .sequentiallyConsistent) >= Self.highWater else { return false }
        paused.store(true, ordering: .sequentiallyConsistent)
        // The reader may have taken the bytes between the check and the store, while no pause
        // was there for it to end: then the loop takes the pause back itself.
        if unread.load(ordering: .sequentiallyConsistent) <= Self.lowWater,
            paused.compareExchange(expected: true, desired: false, ordering: .sequentiallyConsistent).exchanged
        {
            return false
        }
        return true
    }

    /// The reader took `count` bytes. `true` when the transfer is paused and should resume now
    /// (once per pause).
    func taken(_ count: Int) -> Bool {
        let left = unread.subtract(count, ordering: .sequentiallyConsistent).newValue
        guard left <= Self.lowWater else { return false }
        return paused.compareExchange(expected: true, desired: false, ordering: .sequentiallyConsistent).exchanged
    }
}
