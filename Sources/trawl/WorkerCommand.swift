import ArgumentParser
import Foundation
import Logging
import TrawlBatch
import TrawlCore
import TrawlFetch
import TrawlQueue
import TrawlQueueWorker

/// `trawl worker --queue URL`: joins a shared queue from any machine and works its jobs.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Work a shared PostgreSQL queue's jobs (pushed by `trawl batch FILE --queue URL`) until stopped.",
        discussion: """
            Claims jobs in small batches, fetches and extracts them as `trawl batch` does, and commits each result with its job's state. Politeness holds for the whole fleet: --per-host, --delay and Retry-After are kept in the queue's host rows, so every worker shares them (give every worker the same values). A worker killed at any moment loses nothing: its leases run out (--lease) and the jobs go back to the others. Ctrl-C puts jobs in flight back at once. Results go to the queue; `trawl batch … --queue` writes the output file.

            Exit codes: 0 stopped (or, with --exit-when-empty, the queue's work is done), 2 usage error, 3 the queue could not be used, 130 interrupted.
            """)

    @OptionGroup(title: "Shared queue")
    var queue: QueueOptions

    @OptionGroup
    var jobs: JobOptions

    @Flag(help: "Stop once the queue has no unfinished jobs and every list pushed to it was read to its end.")
    var exitWhenEmpty = false

    @OptionGroup(title: "Fetch policy")
    var fetch: FetchOptions

    @OptionGroup(title: "Browser")
    var browser: BrowserOptions

    @OptionGroup
    var connection: ConnectionOptions

    @OptionGroup(title: "Probe")
    var probe: ProbeOptions

    @Flag(help: "No line at the end saying what this worker did.")
    var quiet = false

    func validate() throws {
        if queue.queue == nil { throw ValidationError("--queue is required: the PostgreSQL URL of the queue to work on") }
        try fetch.address.validateOptIn()
    }

    func run() async throws {
        BatchRunCommand.keepFreedPageMemory()
        let report: QueueWorker.Report
        let started = Date()
        do {
            let batch = try BatchConfiguration(jobs: jobs, fetch: fetch, browser: browser, connection: connection, probe: probe)
            let location = try QueueLocation(queue.queue ?? "")
            var configured = QueueWorker.Configuration(batch: batch)
            configured.lease = .milliseconds(Int(queue.lease * 1000))
            configured.expiryLimit = queue.maxLeaseExpiries
            configured.exitWhenEmpty = exitWhenEmpty
            let configuration = configured
            let work = Task {
                try await QueueStore.withStore(location, logger: Logger(label: "trawl.worker"), connections: 4) { store in
                    try await QueueWorker(store: store, configuration: configuration, search: SearchKeys.fromEnvironment()).run()
                }
            }
            let interrupts = InterruptHandler {
                Diagnostics.write("\ntrawl worker: stopping; jobs in flight go back to the queue (Ctrl-C again to quit at once)")
                work.cancel()
            }
            defer { interrupts.remove() }
            report = try await work.value
            if work.isCancelled {
                if !quiet { Self.describe(report, since: started) }
                throw ExitCode(ExitStatus.interrupted.rawValue)
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            Diagnostics.write("trawl worker: " + ErrorSentence.describe(error))
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        if !quiet { Self.describe(report, since: started) }
    }

    private static func describe(_ report: QueueWorker.Report, since started: Date) {
        let elapsed = Date().timeIntervalSince(started)
        var line = String(format: "trawl worker: %d finished in %.1f s (%.1f/s)", report.finished, elapsed, elapsed > 0 ? Double(report.finished) / elapsed : 0)
        if report.retried > 0 { line += ", \(report.retried) to retry later" }
        if report.discarded > 0 { line += ", \(report.discarded) late results discarded (lease expired)" }
        Diagnostics.write(line)
    }
}
