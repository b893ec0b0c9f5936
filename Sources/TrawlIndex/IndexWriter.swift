import Foundation
import Synchronization
public import TrawlCore

/// Feeds the index from extraction, off its path: ``record(_:)`` only appends to a buffer
/// (coalescing repeated updates of a page) and returns; a task of the writer's own writes the
/// buffer into the index in groups, each slice of ``Options/applyBatch`` pages one transaction
/// (after anything an earlier process left in the index's on-disk queue).
///
/// ```swift
/// let writer = IndexWriter(index: try MediaIndex(path: path))
/// configuration.index = writer          // every resolve, batch and smoke run records into it
/// …
/// await writer.close()                  // before the process exits: nothing left in memory
/// ```
///
/// What is durable: an update is safe from a killed process once its group's transaction has
/// committed (within ``Options/flushInterval`` of the extraction, or at ``close()``); a kill
/// before that loses the group whole, never part of a page, and nothing is applied twice.
public final class IndexWriter: ExtractionSink, Sendable {
    /// How the writer groups its work.
    public struct Options: Sendable {
        /// How long a recorded update may wait in memory before its group is queued.
        public var flushInterval: Duration = .milliseconds(200)
        /// Queue the group at once when this many pages wait.
        public var maxBuffered: Int = 512
        /// Pages written per transaction.
        public var applyBatch: Int = 500

        public init() {}
    }

    private struct Buffer {
        var updates: [PageUpdate] = []
        var position: [String: Int] = [:]
        var closed = false
        var failures: [String] = []

        /// Adds `update`, coalesced with what waits for its page.
        mutating func add(_ update: PageUpdate) {
            if let at = position[update.page] {
                updates[at] = updates[at].coalesced(with: update)
            } else {
                position[update.page] = updates.count
                updates.append(update)
            }
        }
    }

    /// The buffer, shared by ``record(_:)`` and the writer's task (a class: a `Mutex` cannot be
    /// copied into the task).
    private final class Shared: Sendable {
        let buffer = Mutex(Buffer())
    }

    public let index: MediaIndex
    private let options: Options
    private let shared = Shared()
    private let wake: AsyncStream<Void>.Continuation
    private let loop: Task<Void, Never>

    /// Starts the writer; updates a previous process left in the queue are applied first.
    public init(index: MediaIndex, options: Options = Options()) {
        self.index = index
        self.options = options
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.wake = wake
        let shared = self.shared
        loop = Task {
            await Self.run(index: index, options: options, shared: shared, wakes: wakes)
        }
        wake.yield()
    }

    /// Takes what `extraction` found; returns at once.
    public func record(_ extraction: Extraction) {
        let updates = PageUpdate.updates(for: extraction)
        guard !updates.isEmpty else { return }
        shared.buffer.withLock { buffer in
            guard !buffer.closed else { return }
            for update in updates { buffer.add(update) }
        }
        wake.yield()
    }

    /// Writes everything recorded so far to the queue and applies the queue, then stops.
    /// - Returns: failures met along the way (a full disk, a locked file), for a warning.
    @discardableResult
    public func close() async -> [String] {
        shared.buffer.withLock { $0.closed = true }
        wake.finish()
        await loop.value
        return shared.buffer.withLock { $0.failures }
    }

    /// Waits for a wake, lets a group gather for the flush interval (unless the buffer is full),
    /// queues it, applies the queue; after the last wake, does it once more and returns.
    private static func run(index: MediaIndex, options: Options, shared: Shared, wakes: AsyncStream<Void>) async {
        for await _ in wakes {
            // Let a group gather; ``close()`` or a full buffer cuts the wait short (checked in
            // small steps: closing should not cost a whole interval).
            let clock = ContinuousClock()
            let end = clock.now + options.flushInterval
            while clock.now < end, shared.buffer.withLock({ !$0.closed && $0.updates.count < options.maxBuffered }) {
                try? await Task.sleep(for: .milliseconds(5))
            }
            await flush(index: index, options: options, shared: shared)
        }
        await flush(index: index, options: options, shared: shared)
    }

    private static func flush(index: MediaIndex, options: Options, shared: Shared) async {
        let group = shared.buffer.withLock { buffer -> [PageUpdate] in
            defer {
                buffer.updates = []
                buffer.position = [:]
            }
            return buffer.updates
        }
        let now = Date().timeIntervalSince1970
        do {
            // What an earlier process left in the on-disk queue goes first: it is older.
            while try await index.applyPending(limit: options.applyBatch, now: now) > 0 {}
        } catch {
            // Queued updates stay queued, for the next flush or the next writer; this group waits
            // behind them, so a newer update never lands under an older one.
            shared.buffer.withLock { buffer in
                note(error, in: &buffer)
                putBack(group, in: &buffer)
            }
            return
        }
        do {
            // The group, in slices of `applyBatch` pages, each slice one transaction; the next
            // slice's rows are prepared (``PreparedGroup``) while SQLite writes this one.
            let slices = stride(from: 0, to: group.count, by: max(options.applyBatch, 1)).map {
                Array(group[$0..<min($0 + max(options.applyBatch, 1), group.count)])
            }
            var prepared = slices.first.map(PreparedGroup.init)
            var next = 1
            while let current = prepared {
                async let following = next < slices.count ? PreparedGroup(slices[next]) : nil
                try await index.store(current, now: now)
                prepared = await following
                next += 1
            }
        } catch {
            // Not stored: put back (under anything recorded since), to try with the next group.
            // Pages a slice stored before the failure are stored again then: storing is idempotent.
            shared.buffer.withLock { buffer in
                note(error, in: &buffer)
                putBack(group, in: &buffer)
            }
        }
    }

    /// Puts `group` back in the buffer, under what was recorded since it was taken.
    private static func putBack(_ group: [PageUpdate], in buffer: inout Buffer) {
        let newer = buffer.updates
        buffer.updates = []
        buffer.position = [:]
        for update in group + newer { buffer.add(update) }
    }

    private static func note(_ error: any Error, in buffer: inout Buffer) {
        buffer.failures.append(ErrorSentence.describe(error))
        if buffer.failures.count > 20 { buffer.failures.removeFirst() }
    }
}
