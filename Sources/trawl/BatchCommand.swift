import ArgumentParser
import CMalloc
import Foundation
import Logging
import Trawl
import TrawlBatch
import TrawlCore
import TrawlFetch
import TrawlQueue
import TrawlQueueWorker
import TrawlStore

/// `trawl batch FILE|-` and `trawl batch status --store FILE`.
struct BatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Extract the GIFs of every URL in a list: resumable, polite per host, with a cache.",
        subcommands: [BatchRunCommand.self, BatchStatusCommand.self],
        defaultSubcommand: BatchRunCommand.self)
}

/// `trawl batch run FILE|-` (the default: `trawl batch urls.txt`).
struct BatchRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Work a URL list to the end (run again with the same store to resume).",
        usage: "trawl batch [run] [<options>] [<file>]",
        discussion: """
            Writes one JSON object per input URL to --out: input, url (normalised), status (done or failed), httpStatus, media (as `trawl resolve --json` prints them) or error (code and message), attempts. Jobs live in the SQLite store; after a crash or kill -9, the same command picks up where the store says, and every URL still appears exactly once in the output. Run it again with a list that has grown (or new URLs on standard input) and the new URLs join the store; done ones are not redone. Blank lines and # comments are skipped; a bad line becomes a failed result naming it, reported once. Ctrl-C stops cleanly: work in flight goes back to the store and the summary is printed.

            With --queue postgres://USER@HOST:PORT/DATABASE the jobs live in PostgreSQL instead of the SQLite store: the list is pushed there, this process works on it with other machines' `trawl worker`s, and writes the output as results arrive from any of them, each input exactly once even after kill -9 of any process. Politeness (--per-host, --delay, Retry-After) holds for the whole fleet.

            Exit codes: 0 every URL done, 1 some failed, 2 usage error, 3 the batch could not run, 130 interrupted.
            """)

    @Argument(help: "A file with one URL per line, or - for standard input. Omit it to finish a store's work.")
    var file: String?

    @Option(help: "Write one JSON line per input URL here.")
    var out: String = "results.jsonl"

    @Option(help: "The SQLite job store (default: beside the output, with its extension .sqlite: results.sqlite).")
    var store: String?

    @OptionGroup(title: "Shared queue")
    var queue: QueueOptions

    @OptionGroup
    var jobs: JobOptions

    @Flag(help: "Adapt each host's delay to its latency (like Scrapy's AutoThrottle).")
    var autothrottle = false

    @OptionGroup(title: "Fetch policy")
    var fetch: FetchOptions

    @OptionGroup(title: "Browser")
    var browser: BrowserOptions

    @OptionGroup
    var connection: ConnectionOptions

    @OptionGroup(title: "Probe")
    var probe: ProbeOptions

    @Flag(help: "Plain progress lines even on a terminal.")
    var noProgressBar = false

    @Flag(help: "No progress output, only the summary.")
    var quiet = false

    @OptionGroup(title: "Local index")
    var index: IndexOptions

    func validate() throws {
        if queue.queue != nil, store != nil { throw ValidationError("--store and --queue are exclusive: jobs live in one or the other") }
        if queue.queue != nil, autothrottle { throw ValidationError("--autothrottle is not available with --queue (the delay is shared by every worker)") }
        try fetch.address.validateOptIn()
        // A list that is not there is a mistake on the command line, as `resolve missing.html` is.
        if let file, file != "-" {
            var isFolder: ObjCBool = false
            if !FileManager.default.fileExists(atPath: file, isDirectory: &isFolder) { throw ValidationError("'\(file)': no such file") }
            if isFolder.boolValue { throw ValidationError("'\(file)' is a folder, not a list of URLs") }
        }
    }

    func run() async throws {
        Self.keepFreedPageMemory()
        if let location = queue.queue {
            try await runOnQueue(location)
            return
        }
        let storePath = store ?? Self.defaultStore(for: out)
        let opened = index.open(recording: true, command: "batch")

        let runner: BatchRunner
        let report: BatchRunner.Report
        do {
            var configuration = try batchConfiguration()
            configuration.resolve.sink = opened?.writer
            runner = try BatchRunner(
                configuration: configuration, storePath: storePath, inputs: file.map { [$0] } ?? [], output: out,
                search: SearchKeys.fromEnvironment())
            let progress = quiet ? nil : BatchProgress(terminal: !noProgressBar && isatty(2) != 0)
            let work = Task { try await runner.run(progress: progress) }
            // Ctrl-C: stop claiming, cancel what is in flight (down to libcurl), put it back in
            // the store, write out what is done, print the summary. Ctrl-C again quits at once.
            let interrupts = InterruptHandler {
                Diagnostics.write("\ntrawl batch: stopping; work in flight goes back to the store (Ctrl-C again to quit at once)")
                work.cancel()
            }
            defer { interrupts.remove() }
            report = try await work.value
        } catch {
            await opened?.close()
            Diagnostics.write("trawl batch: " + ErrorSentence.describe(error))
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        await opened?.close()
        if report.recovered > 0 {
            Diagnostics.write("trawl batch: resumed; \(Counted(report.recovered, "job")) of a stopped run \(report.recovered == 1 ? "was" : "were") put back")
        }
        FileHandle.standardError.write(Data(BatchSummaryText.render(report.summary, elapsed: report.elapsed, finishedThisRun: report.finishedThisRun).utf8))
        if report.interrupted {
            Diagnostics.write("trawl batch: interrupted; run the same command to go on")
            throw ExitCode(ExitStatus.interrupted.rawValue)
        }
        throw ExitCode(report.summary.progress[.failed] > 0 ? ExitStatus.nothingFound.rawValue : 0)
    }

    /// What the flags say, for the SQLite run and the queue alike.
    func batchConfiguration() throws -> BatchConfiguration {
        var configuration = try BatchConfiguration(jobs: jobs, fetch: fetch, browser: browser, connection: connection, probe: probe)
        configuration.autothrottle = autothrottle
        return configuration
    }

    /// `trawl batch FILE --queue URL`: push, work with a worker of this process, write the
    /// output as results arrive from any worker.
    private func runOnQueue(_ text: String) async throws {
        let inputs = file.map { [$0] } ?? []
        let output = out
        let quiet = quiet
        let terminal = !noProgressBar && isatty(2) != 0
        let report: QueueBatch.Report
        do {
            let location = try QueueLocation(text)
            var configured = QueueWorker.Configuration(batch: try batchConfiguration())
            configured.lease = .milliseconds(Int(queue.lease * 1000))
            configured.expiryLimit = queue.maxLeaseExpiries
            let worker = configured
            let work = Task {
                try await QueueStore.withStore(location, logger: Logger(label: "trawl.batch"), connections: 4) { store in
                    let batch = QueueBatch(store: store, configuration: worker, inputs: inputs, output: output, search: SearchKeys.fromEnvironment())
                    return try await batch.run(progress: quiet ? nil : BatchProgress(terminal: terminal))
                }
            }
            let interrupts = InterruptHandler {
                Diagnostics.write("\ntrawl batch: stopping; work in flight goes back to the queue (Ctrl-C again to quit at once)")
                work.cancel()
            }
            defer { interrupts.remove() }
            report = try await work.value
        } catch {
            Diagnostics.write("trawl batch: " + ErrorSentence.describe(error))
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        FileHandle.standardError.write(Data(BatchSummaryText.render(report.summary, elapsed: report.elapsed, finishedThisRun: report.finishedThisRun).utf8))
        if report.interrupted {
            Diagnostics.write("trawl batch: interrupted; run the same command to go on")
            throw ExitCode(ExitStatus.interrupted.rawValue)
        }
        throw ExitCode(report.summary.progress[.failed] > 0 ? ExitStatus.nothingFound.rawValue : 0)
    }

    /// `results.jsonl` → `results.sqlite`.
    /// A batch allocates and frees a page-sized body (hundreds of KiB) per URL on every thread.
    /// glibc hands such blocks back to the kernel as they are freed (its trim and mmap
    /// thresholds), and the next page faults its memory in again: a twentieth of a run's CPU.
    /// Fixed thresholds keep freed memory for the next page; the peak stays what it was.
    static func keepFreedPageMemory() {
        trawl_keep_freed_memory(32 << 20, 64 << 20)
        trawl_limit_malloc_arenas(Int32(max(2, ProcessInfo.processInfo.activeProcessorCount)))
    }

    static func defaultStore(for output: String) -> String {
        let url = URL(fileURLWithPath: output)
        return url.deletingPathExtension().appendingPathExtension("sqlite").path
    }
}

/// `trawl batch status [--out FILE | --store FILE]`: a store's progress, while a run works it or after.
struct BatchStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show a job store's progress (safe while a run is working it).",
        discussion:
            "Finds the store as `trawl batch` does: beside --out (results.sqlite for results.jsonl), or the one --store names. Text on a terminal, one JSON object otherwise."
    )

    @Option(help: "The output the batch writes; its store is beside it.")
    var out: String = "results.jsonl"

    @Option(help: "The SQLite job store (default: beside the output, with its extension .sqlite: results.sqlite).")
    var store: String?

    @Flag(help: "One JSON object (the default when the output is not a terminal).")
    var json = false

    @Flag(help: "Text even when the output is not a terminal.")
    var text = false

    func validate() throws {
        if json && text { throw ValidationError("--json and --text are exclusive") }
    }

    func run() throws {
        let store = self.store ?? BatchRunCommand.defaultStore(for: out)
        guard FileManager.default.fileExists(atPath: store) else {
            throw ValidationError("no job store at '\(store)'" + (self.store == nil ? " (beside --out \(out); pass --out or --store)" : ""))
        }
        let summary = try JobStore(path: store).summary()
        let progress = summary.progress
        if json || (!text && isatty(STDOUT_FILENO) == 0) {
            var object: [String: Any] = [
                "total": progress.total, "mediaFound": progress.mediaFound, "pagesRendered": progress.pagesRendered, "duplicates": progress.duplicates,
                "intakeComplete": progress.intakeComplete,
            ]
            for state in JobState.allCases { object[state.rawValue] = progress[state] }
            if let p50 = summary.latencyP50 { object["latencyP50ms"] = p50 }
            if let p95 = summary.latencyP95 { object["latencyP95ms"] = p95 }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        let states = JobState.allCases.map { "\($0.rawValue) \(progress[$0])" }.joined(separator: ", ")
        print("\(store): \(states)\(progress.intakeComplete ? "" : " (input still being read)")")
        if let next = progress.nextRetryAt {
            print("next retry in \(max(0, Int(next - Date().timeIntervalSince1970))) s")
        }
        print(BatchSummaryText.render(summary, elapsed: nil, finishedThisRun: nil), terminator: "")
    }
}
