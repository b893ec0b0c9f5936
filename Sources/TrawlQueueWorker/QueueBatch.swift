import Foundation
public import Logging
import Synchronization
public import Trawl
public import TrawlBatch
public import TrawlQueue
public import TrawlStore

/// `trawl batch FILE --queue URL`: pushes the URL lists into the shared queue, works on it
/// with a worker of its own (other machines' `trawl worker`s join in), and keeps the output
/// file in step with the results as they arrive, whoever produced them.
///
/// Every promise of the SQLite batch holds: a list is pushed in chunks, each committed with its
/// line count (a killed push resumes where it stopped); results are numbered as they become
/// visible and written out behind a watermark kept in the queue (a killed run cuts the file
/// back and appends the rest), so each input appears once in the output.
public struct QueueBatch: Sendable {
    public struct Report: Sendable {
        public var summary: StoreSummary
        public var elapsed: Double
        /// Jobs finished by this process's worker.
        public var finishedThisRun: Int
        /// Ctrl-C: in-flight jobs went back to the queue; the same command goes on.
        public var interrupted: Bool
    }

    private let store: QueueStore
    private let configuration: QueueWorker.Configuration
    private let inputs: [String]
    private let output: String?
    private let search: TrawlConfiguration.Search
    private let logger: Logger

    public init(
        store: QueueStore, configuration: QueueWorker.Configuration, inputs: [String], output: String?,
        search: TrawlConfiguration.Search = TrawlConfiguration.Search(), logger: Logger = Logger(label: "trawl.batch")
    ) {
        // The push, the worker and the output all wait out the server's outages.
        self.store = store.reconnecting()
        var configuration = configuration
        configuration.exitWhenEmpty = true
        self.configuration = configuration
        self.inputs = inputs
        self.output = output
        self.search = search
        self.logger = logger
    }

    public func run(progress: BatchProgress? = nil) async throws -> Report {
        let store = self.store
        let started = Date().timeIntervalSince1970
        var intakes: [Intake] = []
        for input in inputs {
            let intake = try await Intake(path: input, store: store, configuration: configuration.batch)
            // The list counts as unread until this run reads it to its end: no worker stops
            // early, here or elsewhere, while lines may still come.
            let mark = try await store.intake(of: intake.source)
            _ = try await store.addCounting([], source: intake.source, linesRead: mark.linesRead, complete: false, now: started)
            intakes.append(intake)
        }
        var outputFile: OutputFile?
        if let output { outputFile = try await OutputFile.open(path: output, store: store) }
        try await outputFile?.catchUp()

        let initial = try await store.progress()
        let snapshot = SharedSnapshot()
        snapshot.withLock {
            $0.total = initial.total
            $0.done = initial[.done]
            $0.failed = initial[.failed]
            $0.waiting = initial[.retryLater]
            $0.mediaFound = initial.mediaFound
            $0.totalKnown = intakes.isEmpty
        }
        let worker = QueueWorker(store: store, configuration: configuration, search: search, logger: logger)
        let lists = intakes
        var intakeError: String?
        var interrupted = false
        enum Signal: Sendable {
            case intakeEnded(error: String?)
            case workerEnded
            case failed(any Error)
            case tick
        }
        let (signals, sink) = AsyncStream.makeStream(of: Signal.self)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for intake in lists {
                        do {
                            while true {
                                let chunk = try await intake.next()
                                snapshot.withLock {
                                    $0.total += chunk.added
                                    $0.failed += chunk.rejected
                                    $0.finishedThisRun += chunk.rejected
                                }
                                if chunk.finished { break }
                            }
                        } catch {
                            if Task.isCancelled { return }
                            // What was read goes on; the rest of this list is reported, and the
                            // list no longer holds workers back.
                            do {
                                let mark = try await store.intake(of: intake.source)
                                _ = try await store.addCounting(
                                    [], source: intake.source, linesRead: mark.linesRead, complete: true, now: Date().timeIntervalSince1970)
                            } catch {
                                sink.yield(.failed(error))
                                return
                            }
                            sink.yield(.intakeEnded(error: "\(error)"))
                            return
                        }
                    }
                    snapshot.withLock { $0.totalKnown = true }
                    sink.yield(.intakeEnded(error: nil))
                }
                group.addTask {
                    do {
                        _ = try await worker.run { event in
                            guard case .finished(_, let outcome, let kept) = event, kept else { return }
                            snapshot.withLock {
                                switch outcome {
                                case .done(let result):
                                    $0.done += 1
                                    $0.mediaFound += result.mediaCount
                                    $0.finishedThisRun += 1
                                case .failed:
                                    $0.failed += 1
                                    $0.finishedThisRun += 1
                                case .retryLater:
                                    $0.waiting += 1
                                }
                            }
                        }
                        sink.yield(.workerEnded)
                    } catch {
                        sink.yield(.failed(error))
                    }
                }
                // The output follows the results every quarter second, whichever worker
                // produced them, until this process's worker finds the queue's work done.
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .milliseconds(250))
                        sink.yield(.tick)
                    }
                }
                for await signal in signals {
                    switch signal {
                    case .intakeEnded(let error):
                        if let error { intakeError = error }
                        continue
                    case .failed(let error):
                        throw error
                    case .tick:
                        try await outputFile?.catchUp(whileBusy: true)
                        var current = snapshot.withLock { $0 }
                        current.elapsed = Date().timeIntervalSince1970 - started
                        progress?.update(current)
                        continue
                    case .workerEnded:
                        break
                    }
                    break
                }
                group.cancelAll()
            }
        } catch  where Task.isCancelled {
            interrupted = true
        }
        interrupted = interrupted || Task.isCancelled
        try await outputFile?.catchUp()
        var final = snapshot.withLock { $0 }
        final.elapsed = Date().timeIntervalSince1970 - started
        final.inFlight = 0
        progress?.finish(final)
        if let intakeError, !interrupted { throw BatchError(.unreadableInput, intakeError) }
        return Report(
            summary: try await store.summary(topHosts: 10), elapsed: final.elapsed, finishedThisRun: final.finishedThisRun,
            interrupted: interrupted)
    }
}

/// The progress figures the intake, the worker and the output loop share.
private final class SharedSnapshot: Sendable {
    private let state = Mutex(BatchSnapshot())

    func withLock<T>(_ body: (inout BatchSnapshot) -> T) -> T {
        state.withLock { body(&$0) }
    }
}
