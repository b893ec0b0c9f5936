// trawl-index-bench: the local index at scale. Builds an index of synthetic media (titles from a
// word list generated here from a fixed seed), group by group the way the IndexWriter writes
// them (each group prepared, then one transaction), and times `!local` queries with facet counts
// and highlights.
//
//   swift run -c release --package-path Benchmarks trawl-index-bench [--rows 1000000] [--queries 300]
//                                    [--path FILE] [--keep] [--exact] [--repeat PERCENT]   (--help)
//
// Prints the insert rate, the file size and p50/p99 per query shape. `--exact` counts, facets and
// ranks every match (no `countLimit`), to compare with the capped count from the same binary. `--repeat 30` makes 30% of the media ones found before, on
// a page of their own (often another site's): a search then collapses a media's entries into
// one result and counts it once (by default every media is on one page). Figures depend on the
// machine and on what else it runs: rerun it, do not quote a number without saying where.
import ArgumentParser
import BenchmarkSupport
import Foundation
import TrawlCore
import TrawlIndex
import TrawlTesting

#if canImport(Glibc)
import Glibc
#endif

/// `trawl-index-bench`'s command line.
struct IndexBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trawl-index-bench",
        abstract: "The local index at scale: insert rate, size on disk, and `!local` latency with facets and highlights per query shape.",
        discussion: "Run from the repository's top folder: swift run -c release --package-path Benchmarks trawl-index-bench (make bench-index).")

    @Option(help: "Rows (media) to index.")
    var rows = 1_000_000

    @Option(help: "Queries timed per shape (after ten that warm the page cache).")
    var queries = 300

    @Option(help: "The index file (default: one in a new temporary folder).")
    var path: String?

    @Flag(help: "Keep the index after the run.")
    var keep = false

    @Flag(help: "Count, facet and rank every match (no count limit).")
    var exact = false

    @Option(name: .customLong("repeat"), help: ArgumentHelp("Percent of the media that are ones found before, on a page of their own.", valueName: "percent"))
    var repeatPercent = 0

    /// Media per page and pages per transaction, as a writer's flush groups them.
    var pageSize: Int { 4 }
    var group: Int { 500 }

    func validate() throws {
        guard (0...100).contains(repeatPercent) else { throw ValidationError("--repeat is a percentage, 0 to 100") }
    }
}

/// Pronounceable made-up words from syllables: a vocabulary no one else wrote.
struct WordList {
    let words: [String]

    init(count: Int, generator: inout SplitMix64) {
        let onsets = ["b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "cr", "st", "tr", "pl", "gr", "sh", "ch"]
        let vowels = ["a", "e", "i", "o", "u", "ai", "ou", "ee"]
        let codas = ["", "", "n", "r", "s", "t", "l", "m"]
        var seen = Set<String>()
        var words: [String] = []
        while words.count < count {
            let syllables = Int.random(in: 2...3, using: &generator)
            let word = (0..<syllables).map { _ in
                onsets.randomElement(using: &generator)! + vowels.randomElement(using: &generator)! + codas.randomElement(using: &generator)!
            }.joined()
            if seen.insert(word).inserted { words.append(word) }
        }
        self.words = words
    }
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

/// CPU seconds (user + system) this process has used: a figure the machine's other load does
/// not inflate the way it inflates wall time.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

let arguments = BenchmarkCommandLine.parse(IndexBench.self)
var generator = SplitMix64(seed: 19)
let vocabulary = WordList(count: 5000, generator: &generator).words
// One common word in a tenth of all titles: the worst case a real index meets ("cat").
let common = "cat"
let sites = ["giphy", "tenor", "imgur", "reddit", "tumblr", "example"]
let kinds: [MediaKind] = [.gif, .gif, .gif, .mp4, .mp4, .webp]
let path = arguments.path ?? FileManager.default.temporaryDirectory.appendingPathComponent("trawl-index-bench-\(UUID().uuidString)/index.sqlite").path

let index = try MediaIndex(path: path)
let clock = ContinuousClock()
print(
    "trawl-index-bench: \(arguments.rows) rows, \(arguments.pageSize) per page, vocabulary \(vocabulary.count) words (uniform, 4–8 per title; '\(common)' in 10% of titles), groups of \(arguments.group) pages"
)
print("index: \(path)")
if arguments.repeatPercent > 0 { print("repeats: \(arguments.repeatPercent)% of the media are ones found before, on another page") }
print(arguments.exact ? "queries: every match counted and ranked (--exact)" : "queries: the \(MediaIndex.countLimit) newest matches counted and ranked")

// Insert: each group of pages as a writer's flush stores it, in one transaction.
let pages = (arguments.rows + arguments.pageSize - 1) / arguments.pageSize
var queued: [Extraction] = []
var rows = 0
let start = clock.now
let startCPU = cpuSeconds()
var flushCPU = 0.0
var applied = 0
// Every media made so far, for `--repeat` to find again.
var made: [Media] = []
for pageNumber in 0..<pages {
    let site = sites[pageNumber % sites.count]
    let pageURL = "https://\(site).com/post/\(pageNumber)"
    var media: [Media] = []
    for n in 0..<min(arguments.pageSize, arguments.rows - rows) {
        if arguments.repeatPercent > 0, !made.isEmpty, Int.random(in: 0..<100, using: &generator) < arguments.repeatPercent {
            var again = made[Int.random(in: 0..<made.count, using: &generator)]
            again.page = pageURL
            if !media.contains(where: { $0.url == again.url }) {
                media.append(again)
                continue
            }
        }
        var words = (0..<Int.random(in: 4...8, using: &generator)).map { _ in vocabulary.randomElement(using: &generator)! }
        if Int.random(in: 0..<10, using: &generator) == 0 { words.insert(common, at: Int.random(in: 0...words.count, using: &generator)) }
        let side = [120, 200, 320, 480, 640, 1080].randomElement(using: &generator)!
        media.append(
            Media(
                url: "https://media.\(site).com/\(pageNumber)/\(n).gif", kind: kinds.randomElement(using: &generator)!,
                width: side, height: side * 9 / 16, title: words.joined(separator: " "), page: pageURL,
                provenance: Provenance(parser: "bench", origin: .document)))
        if arguments.repeatPercent > 0 { made.append(media[media.count - 1]) }
    }
    rows += media.count
    queued.append(Extraction(request: Request(pageURL), engine: "web", media: media, isComplete: true))
    if queued.count == arguments.group || pageNumber == pages - 1 {
        let before = cpuSeconds()
        try await index.index(queued, now: 0)
        flushCPU += cpuSeconds() - before
        applied += queued.count
        queued = []
        if applied % 50_000 < arguments.group {
            let elapsed = milliseconds(clock.now - start) / 1000
            FileHandle.standardError.write(Data("  \(rows) rows, \(Int(Double(rows) / elapsed)) rows/s\n".utf8))
        }
    }
}
let insertSeconds = milliseconds(clock.now - start) / 1000
let insertCPU = cpuSeconds() - startCPU
try await index.checkpoint()
let stats = try await index.stats()
print(
    String(
        format: "insert: %d rows in %.1f s wall = %.0f rows/s (%@)", stats.media, insertSeconds, Double(stats.media) / insertSeconds,
        "straight into the index, one transaction per group" as NSString))
print(
    String(
        format: "        CPU: %.1f s in all, %.1f s in the index's transactions = %.0f rows per CPU second (the rest: generating the rows)", insertCPU,
        flushCPU, Double(stats.media) / max(flushCPU, 0.001)))
print(String(format: "size:   %.1f MiB on disk (%.0f bytes per row)", Double(stats.bytes) / 1_048_576, Double(stats.bytes) / Double(max(stats.media, 1))))

// Queries: each with facet counts over every match and highlighted titles for the page of 25.
@MainActor func shape(_ name: String, _ make: (inout SplitMix64) -> String) async throws {
    var times: [Double] = []
    var totals: [Int] = []
    var capped = 0
    var cpu = 0.0
    for n in 0..<(arguments.queries + 10) {
        let text = make(&generator)
        let query = try LocalQuery(parsing: text)
        let began = clock.now
        let beganCPU = cpuSeconds()
        let page = try await index.search(query, limit: 25, countLimit: arguments.exact ? nil : MediaIndex.countLimit)
        let took = milliseconds(clock.now - began)
        if n >= 10 {  // the first ten warm the page cache
            cpu += cpuSeconds() - beganCPU
            times.append(took)
            totals.append(page.total)
            if page.totalIsLowerBound { capped += 1 }
        }
    }
    times.sort()
    totals.sort()
    print(
        String(
            format: "%-28@ p50 %7.2f ms  p99 %7.2f ms  max %7.2f ms  CPU mean %7.2f ms  (matches p50 %d, max %d%@)",
            name as NSString, percentile(times, 0.5), percentile(times, 0.99), times.last ?? 0, cpu * 1000 / Double(max(times.count, 1)),
            Int(percentile(totals.map(Double.init), 0.5)), totals.last ?? 0,
            (capped > 0 ? "+, \(capped) of \(times.count) capped at \(MediaIndex.countLimit)" : "") as NSString))
}

try await shape("one word") { "!local " + vocabulary.randomElement(using: &$0)! }
try await shape("two words") { "!local \(vocabulary.randomElement(using: &$0)!) \(vocabulary.randomElement(using: &$0)!)" }
try await shape("prefix (3 letters)") { "!local " + String(vocabulary.randomElement(using: &$0)!.prefix(3)) + "*" }
try await shape("prefix (5 letters)") { "!local " + String(vocabulary.randomElement(using: &$0)!.prefix(5)) + "*" }
try await shape("one word + site: + kind:") { "!local \(vocabulary.randomElement(using: &$0)!) site:\(sites.randomElement(using: &$0)!) kind:gif" }
try await shape("common word (10% of rows)") { _ in "!local \(common)" }
try await shape("common word + a word") { "!local \(common) \(vocabulary.randomElement(using: &$0)!)" }

if !arguments.keep {
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
    try? FileManager.default.removeItem(at: folder)
}
