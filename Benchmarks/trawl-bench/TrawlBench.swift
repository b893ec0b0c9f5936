import ArgumentParser
import BenchmarkSupport
import Foundation

/// `trawl-bench`: one subcommand per measurement; `trawl-bench` alone runs `all`.
struct TrawlBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trawl-bench",
        abstract: "Trawl's benchmarks: extraction against libxml2's own limit, accuracy, memory; trawl batch, --probe, the queue and the browser end to end.",
        discussion: """
            Run from the repository's top folder after `swift build -c release --package-path Benchmarks --product trawl-bench` (the binary is Benchmarks/.build/release/trawl-bench). batch, batch-memory, memory-process, probe, queue, browser and auto-static spawn the release trawl: `swift build -c release --product trawl` first (Benchmarks/batch.sh and the other scripts do both). The corpus is read from ../shared/corpus (or $TRAWL_CORPUS). Benchmarks/README.md says what each measures.
            """,
        subcommands: [
            All.self, Throughput.self, Profile.self, Replay.self, Accuracy.self, DevSetCommand.self, Memory.self, MemoryText.self,
            MemoryProcess.self,
            FirstMedia.self,
            Batch.self, BatchMemory.self, Probe.self, QueueOverhead.self, Queue.self, Browser.self, AutoStatic.self, Serve.self, Compare.self,
        ],
        defaultSubcommand: All.self)
}

@main
enum TrawlBenchMain {
    static func main() async { await BenchmarkCommandLine.main(TrawlBench.self) }
}

extension TrawlBench {
    struct All: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "all", abstract: "throughput, replay, accuracy and memory")

        func run() async throws {
            try throughput()
            try await replay()
            try await accuracy(verbose: false)
            // Peak RSS is a high-water mark: the memory benchmark comes last.
            try await memory(.markup)
        }
    }

    struct Throughput: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "throughput", abstract: "extraction over the generic corpus against libxml2's own limit")

        func run() throws { try throughput() }
    }

    struct Profile: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "profile", abstract: "only the extraction, round after round, for perf record")

        @Argument(help: "Rounds over the generic corpus.")
        var rounds = 10

        func run() throws { try profileExtraction(rounds: rounds) }
    }

    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "replay", abstract: "every case and corpus response, replayed")

        func run() async throws { try await replay() }
    }

    struct Accuracy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "accuracy", abstract: "precision and recall per site over the corpus and the dev set")

        @Flag(help: "The dev set's figures for each response, and the results that carry no expected URL.")
        var verbose = false

        func run() async throws { try await accuracy(verbose: verbose) }
    }

    struct DevSetCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "devset", abstract: "the dev set alone: overall, by trap class, by site")

        @Flag(help: "Each response's figures, and the results that carry no expected URL.")
        var verbose = false

        func run() async throws { try await devSetAccuracy(verbose: verbose) }
    }

    // Peak RSS is a high-water mark: each page needs a process of its own.
    struct Memory: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "memory", abstract: "peak RSS resolving a 30 MB page of markup")

        func run() async throws { try await memory(.markup) }
    }

    struct MemoryText: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "memory-text", abstract: "peak RSS resolving a 30 MB page that is one text node")

        func run() async throws { try await memory(.text) }
    }

    /// What the benchmarks of whole `trawl resolve` processes take: rounds, and the build to run.
    struct ProcessRunOptions: ParsableArguments {
        @Option(help: "Rounds, the inputs alternating.") var rounds = 5
        @Option(help: "Another trawl binary to measure instead of the repository's release build (an earlier build).")
        var trawl: String?

        func validate() throws {
            guard rounds > 0 else { throw ValidationError("--rounds must be at least 1") }
        }

        /// The binary to run: `--trawl`, or the top package's release build; it must be there.
        func binary() throws -> String {
            let binary = trawl ?? BatchBenchmark.trawlBinary
            guard FileManager.default.isExecutableFile(atPath: binary) else {
                throw BenchmarkError("no trawl at \(binary): swift build -c release --product trawl in the repository's top folder")
            }
            return binary
        }
    }

    struct MemoryProcess: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "memory-process", abstract: "peak RSS of whole trawl resolve processes on the 30 MB page: file: and HTTP from nginx")

        @OptionGroup var options: ProcessRunOptions

        func run() throws { try ProcessMemoryBenchmark.run(rounds: options.rounds, trawl: try options.binary()) }
    }

    struct FirstMedia: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "first-media", abstract: "when a 30 MB page's named GIF is printed by trawl resolve, against when the process ends")

        @OptionGroup var options: ProcessRunOptions

        func run() throws { try FirstMediaBenchmark.run(rounds: options.rounds, trawl: try options.binary()) }
    }

    // `trawl batch` end to end; these spawn the release `trawl` of the repository's top package.
    struct Batch: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "batch", abstract: "trawl batch against nginx, beside Scrapy")

        @OptionGroup var options: BatchBenchmark.Options

        func run() throws { try BatchBenchmark.run(options) }
    }

    struct BatchMemory: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "batch-memory", abstract: "peak RSS of trawl batch by list length")

        @OptionGroup var options: BatchBenchmark.MemoryOptions

        func run() throws { try BatchBenchmark.memory(options) }
    }

    /// What `--probe` adds to a page: trawl batch with and without it, media served by nginx with ranges.
    struct Probe: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "probe", abstract: "what --probe adds per page (nginx)")

        @OptionGroup var options: ProbeBenchmark.Options

        func run() throws { try ProbeBenchmark.run(options) }
    }

    // The PostgreSQL queue: its own overhead (instant transport), and two workers end to end vs
    // SQLite. Both take every queue option (Benchmarks/queue.sh passes its arguments to both).
    struct QueueOverhead: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "queue-overhead", abstract: "the PostgreSQL queue's own cost")

        @OptionGroup var options: QueueBenchmark.Options

        func run() async throws { try await QueueBenchmark.overhead(options) }
    }

    struct Queue: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "queue", abstract: "two queue workers vs SQLite, end to end")

        @OptionGroup var options: QueueBenchmark.Options

        func run() throws { try QueueBenchmark.endToEnd(options) }
    }

    /// Against Playwright and Crawlee for Python (Benchmarks/browser.sh installs them and passes --python).
    struct Browser: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "browser", abstract: "against Playwright and Crawlee (jt: pages that fetch after a timer)")

        @OptionGroup var options: BrowserComparison.Options

        func run() throws { try BrowserComparison.run(options) }
    }

    struct AutoStatic: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "auto-static", abstract: "--browser never vs auto on static pages: CPU per page")

        @OptionGroup var options: AutoStaticBenchmark.Options

        func run() throws { try AutoStaticBenchmark.run(options) }
    }

    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve", abstract: "the batch server alone, for a profiler",
            discussion: "Writes the URL list to LIST and serves it until standard input closes.")

        @Argument(help: "Where to write the URL list.")
        var list: String

        @OptionGroup var options: BatchBenchmark.ServeOptions

        func run() throws { try BatchBenchmark.serve(options, list: list) }
    }

    /// Scans each file with the thinned feed and without; prints the files whose results differ
    /// (for narrowing down a case the tests found). Exits 1 when some differ.
    struct Compare: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "compare", abstract: "thinned vs full scan of pages that differ")

        @Argument(help: "HTML files to scan both ways.")
        var files: [String]

        func run() throws {
            if try compareThinnedScan(files) { throw ExitCode(1) }
        }
    }
}
