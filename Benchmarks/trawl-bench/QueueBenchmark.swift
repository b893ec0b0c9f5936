import ArgumentParser
import BenchmarkSupport
import Foundation
import Logging
import Synchronization
import TrawlBatch
import TrawlCore
import TrawlQueue
import TrawlQueueWorker
import TrawlTesting

#if canImport(Glibc)
import Glibc
#endif

/// `trawl-bench queue-overhead`: the PostgreSQL queue's own cost. A list of URLs is pushed
/// (batched inserts, as `trawl batch --queue` does) into a throwaway cluster with PostgreSQL's
/// durable defaults, then worked by 1, 4 and 16 in-process workers whose transport answers
/// instantly from memory: claims + completions per second, the rest of the pipeline unchanged.
///
/// `trawl-bench queue`: end to end on the generic corpus behind nginx, the same list worked by
/// one `trawl batch` on SQLite and by two queue workers (`trawl batch --queue` and one
/// `trawl worker`), alternately in the same run: pages per second and their ratio.
enum QueueBenchmark {
    /// The options of both queue benchmarks: `Benchmarks/queue.sh` passes its arguments to each,
    /// and each reads its own.
    struct Options: ParsableArguments {
        @Option(help: "queue-overhead: URLs pushed.")
        var urls = 1_000_000

        @Option(name: .customLong("workers"), help: ArgumentHelp("queue-overhead: in-process worker counts, one run each.", valueName: "n,n,…"))
        var workerCounts = CommaList([1, 4, 16])

        @Option(help: "queue-overhead: hosts the URLs are spread over.")
        var hosts = 1000

        @Option(help: "Jobs in flight per worker and the per-host cap (queue: the SQLite batch's; each queue worker takes half).")
        var concurrency = 32

        @Option(help: "queue: corpus URLs in the list.")
        var pages = 2000

        @Option(help: "queue: rounds, SQLite then the queue.")
        var rounds = 3

        @Option(help: "queue-overhead: finished attempts per finish statement at most (default: the worker's own, half its slots).")
        var finishGroup: Int?

        @Flag(help: "queue-overhead: each worker count also with half the slots' jobs claimed ahead, for a before/after in the same run.")
        var compare = false

        /// Print the busiest statements (`pg_stat_statements`): after each round of `queue`, after each
        /// worker count of `queue-overhead`.
        @Flag(help: "Print the server's busiest statements (pg_stat_statements) after each round or worker count.")
        var statements = false

        var workers: [Int] { workerCounts.values }

        /// Runs of `queue-overhead` per worker count: `true` also holds half the slots' jobs
        /// claimed ahead (the default before finishes took over their slots), for a
        /// before/after in the same run (`--compare`).
        var baselines: [Bool] { compare ? [true, false] : [false] }
    }

    /// Answers every request at once with a small page carrying one GIF: no network, no wait.
    struct InstantTransport: PayloadTransport {
        static let page = Data("<html><head><title>t</title><meta property=\"og:image\" content=\"https://media.test/a.gif\"></head><body></body></html>".utf8)

        func payloads(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
            AsyncThrowingStream { continuation in
                continuation.yield(Payload(body: Self.page, info: PayloadInfo(url: request.url, contentType: "text/html")))
                continuation.finish()
            }
        }
    }

    static func overhead(_ options: Options) async throws {
        let cluster = try PostgresCluster(
            durable: true, settings: options.statements ? ["shared_preload_libraries": "pg_stat_statements", "pg_stat_statements.track": "all"] : [:])
        defer { cluster.stop() }
        print(
            "PostgreSQL: a throwaway cluster on 127.0.0.1:\(cluster.port), durable defaults (fsync on, synchronous_commit on); \(ProcessInfo.processInfo.activeProcessorCount) cores, shared with other work"
        )
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-bench-queue-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = folder.appendingPathComponent("urls.txt")
        var text = ""
        text.reserveCapacity(options.urls * 40)
        for n in 0..<options.urls { text += "http://h\(n % options.hosts).test/p/\(n)\n" }
        try Data(text.utf8).write(to: list)
        print("list: \(options.urls) URLs over \(options.hosts) hosts; each worker \(options.concurrency) in flight, per-host cap \(options.concurrency)")

        var configured = BatchConfiguration()
        configured.concurrency = options.concurrency
        configured.fetch.perHost = options.concurrency
        configured.intakeChunk = 5000
        let batch = configured
        for workers in options.workers {
            for baseline in options.baselines {
                let location = try QueueLocation(try await cluster.createDatabase())
                if options.statements {
                    _ = try await cluster.psql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements", database: location.database)
                }
                let clock = ContinuousClock()
                let (push, work, finished, cpu) = try await QueueStore.withStore(location, logger: Logger(label: "bench"), connections: workers * 2 + 2) {
                    store in
                    let pushStart = clock.now
                    let intake = try await Intake(path: list.path, store: store, configuration: batch)
                    while try await !intake.next().finished {}
                    let push = clock.now - pushStart
                    var worker = QueueWorker.Configuration(batch: batch)
                    worker.exitWhenEmpty = true
                    if baseline { worker.claimAhead = options.concurrency / 2 }
                    if let group = options.finishGroup { worker.finishGroup = group }
                    let configuration = worker
                    // CPU of this process (the workers) and of the server's backends over the work.
                    if options.statements { _ = try await cluster.psql("SELECT pg_stat_statements_reset()", database: location.database) }
                    let before = (ownCPUSeconds(), serverCPUSeconds(cluster), try serverWrites(cluster, database: location.database))
                    let workStart = clock.now
                    let finished = try await withThrowingTaskGroup(of: Int.self) { group in
                        for _ in 0..<workers {
                            group.addTask {
                                try await QueueWorker(store: store, configuration: configuration, transport: InstantTransport()).run().finished
                            }
                        }
                        return try await group.reduce(0, +)
                    }
                    let work = clock.now - workStart
                    let cpu = (ownCPUSeconds() - before.0, serverCPUSeconds(cluster) - before.1)
                    // Server statistics reach the shared counters within a second of a backend's work.
                    try await Task.sleep(for: .milliseconds(1200))
                    let writes = try serverWrites(cluster, database: location.database)
                    return (
                        push, work, finished, (cpu.0, cpu.1, writes.wal - before.2.wal, writes.walBytes - before.2.walBytes, writes.commits - before.2.commits)
                    )
                }
                let pushRate = Double(options.urls) / seconds(push)
                if workers == 0 {
                    print(String(format: "  pushed %d URLs in %.1f s: %.0f URLs/s", options.urls, seconds(push), pushRate))
                } else {
                    let workRate = Double(finished) / seconds(work)
                    let jobs = Double(max(1, finished))
                    print(
                        (baseline ? "  claiming half ahead:" : "")
                            + String(
                                format:
                                    "  %2d workers: pushed %d URLs in %.1f s (%.0f/s); %d jobs claimed and completed in %.1f s: %.0f jobs/s; CPU per 1000 jobs: workers %.2f s, PostgreSQL %.2f s; per job: %.1f WAL records, %.0f WAL bytes, %.3f commits; this process's peak RSS so far %.0f MB",
                                workers, options.urls, seconds(push), pushRate, finished, seconds(work), workRate,
                                cpu.0 * 1000 / jobs, cpu.1 * 1000 / jobs, Double(cpu.2) / jobs, Double(cpu.3) / jobs, Double(cpu.4) / jobs,
                                peakResidentMegabytes()))
                }
                if options.statements {
                    // Where the server's time goes over the work: per statement, its calls, rows,
                    // milliseconds in all and WAL records, per 1000 jobs.
                    let per = 1000 / Double(max(1, finished))
                    let top = try await cluster.psql(
                        """
                        SELECT calls, rows, round((total_exec_time * \(per))::numeric, 1), round(wal_records * \(per)),
                            left(regexp_replace(query, '\\s+', ' ', 'g'), 70)
                        FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '\(location.database)')
                        ORDER BY total_exec_time DESC LIMIT 8
                        """, database: location.database)
                    print("      pg (calls | rows | ms per 1000 jobs | WAL records per 1000 jobs | statement):")
                    print(top.split(separator: "\n").map { "      pg: " + $0 }.joined(separator: "\n"))
                }
                _ = try? await cluster.psql("DROP DATABASE \"\(location.database)\"")
            }
        }
    }

    static func endToEnd(_ options: Options) throws {
        let files = try Corpus.genericPages()
        let nginx = try NginxServer(pages: files)
        defer { nginx.stop() }
        let cluster = try PostgresCluster(
            durable: true, settings: options.statements ? ["shared_preload_libraries": "pg_stat_statements", "pg_stat_statements.track": "all"] : [:])
        defer { cluster.stop() }
        let names = files.map(\.lastPathComponent)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-bench-queue-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = folder.appendingPathComponent("urls.txt")
        try Data((BatchBenchmark.corpusURLs(port: nginx.port, names: names, count: options.pages).joined(separator: "\n") + "\n").utf8).write(to: list)
        let half = max(1, options.concurrency / 2)
        print(
            "nginx \(NginxServer.version) on 127.0.0.1:\(nginx.port), \(options.pages) corpus URLs; PostgreSQL on 127.0.0.1:\(cluster.port) (durable defaults)")
        print("SQLite: one trawl batch, concurrency \(options.concurrency); queue: trawl batch --queue and one trawl worker, \(half) each")
        let common = ["--per-host", "\(options.concurrency)", "--quiet", "--connect-to", "::127.0.0.1:\(nginx.port)", "--plain-http", "--browser", "never"]
        var ratios: [Double] = []
        var sqliteRates: [Double] = []
        var queueRates: [Double] = []
        var sqliteCPU: [Double] = []
        var queueCPU: [(batch: Double, worker: Double, server: Double)] = []
        for round in 0..<options.rounds {
            let out = folder.appendingPathComponent("sqlite-\(round).jsonl")
            let sqliteBusy = MachineBusy()
            let sqlite = try BatchBenchmark.spawn(
                [
                    BatchBenchmark.trawlBinary, "batch", list.path, "--out", out.path, "--store", folder.appendingPathComponent("s-\(round).sqlite").path,
                    "--concurrency", "\(options.concurrency)",
                ] + common)
            let sqliteLines = (try? String(contentsOf: out, encoding: .utf8))?.split(separator: "\n").count ?? 0

            let database = "e2e_\(round)_\(UInt32.random(in: 0...UInt32.max))"
            let url = try cluster.createDatabase(database)
            if options.statements {
                _ = try cluster.psql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements", database: database)
                _ = try cluster.psql("SELECT pg_stat_statements_reset()", database: database)
            }
            let queueOut = folder.appendingPathComponent("queue-\(round).jsonl")
            let sqliteShare = sqliteBusy.share()
            let serverBefore = serverCPUSeconds(cluster)
            let queueBusy = MachineBusy()
            let started = ContinuousClock.now
            let batchPID = try spawnDetached(
                [
                    BatchBenchmark.trawlBinary, "batch", list.path, "--out", queueOut.path, "--queue", url, "--concurrency", "\(half)",
                ] + common)
            // The worker joins once the list is in the queue, as a second machine would: with
            // --exit-when-empty, a worker that finds no list and no job leaves at once, and the
            // batch would then work alone.
            for _ in 0..<500 {
                let lists = (try? cluster.psql("SELECT count(*) FROM trawl_intake", database: database))?
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                if let lists, lists != "0", !lists.isEmpty { break }
                usleep(10_000)
            }
            let worker = try spawnDetached([BatchBenchmark.trawlBinary, "worker", "--queue", url, "--exit-when-empty", "--concurrency", "\(half)"] + common)
            var batchStatus: Int32 = 0
            var batchUsage = rusage()
            while wait4(batchPID, &batchStatus, 0, &batchUsage) < 0 && errno == EINTR {}
            let queueSeconds = seconds(ContinuousClock.now - started)
            let batch = (status: (batchStatus >> 8) & 0xff, cpu: BatchBenchmark.cpuSeconds(batchUsage))
            var status: Int32 = 0
            var workerUsage = rusage()
            while wait4(worker, &status, 0, &workerUsage) < 0 && errno == EINTR {}
            let queueShare = queueBusy.share()
            let serverCPU = serverCPUSeconds(cluster) - serverBefore
            let workerCPU = BatchBenchmark.cpuSeconds(workerUsage)
            let queueLines = (try? String(contentsOf: queueOut, encoding: .utf8))?.split(separator: "\n").count ?? 0
            guard sqliteLines == options.pages, queueLines == options.pages, batch.status <= 1, sqlite.status <= 1 else {
                print(
                    "  round \(round + 1): lines sqlite \(sqliteLines), queue \(queueLines) of \(options.pages) (exit \(sqlite.status), \(batch.status)); not counted"
                )
                continue
            }
            if options.statements {
                // Calls, rows and total time of the statements that took the most, and the transactions.
                let top = try cluster.psql(
                    """
                    SELECT calls, rows, round(total_exec_time::numeric, 1), left(regexp_replace(query, '\\s+', ' ', 'g'), 90)
                    FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 12
                    """, database: database)
                print(top.split(separator: "\n").map { "           pg: " + $0 }.joined(separator: "\n"))
                let commits = try cluster.psql("SELECT xact_commit FROM pg_stat_database WHERE datname = '\(database)'")
                print("           pg: \(commits.trimmingCharacters(in: .whitespacesAndNewlines)) transactions committed in the database")
            }
            let sqliteRate = Double(options.pages) / sqlite.seconds
            let queueRate = Double(options.pages) / queueSeconds
            sqliteRates.append(sqliteRate)
            queueRates.append(queueRate)
            ratios.append(queueRate / sqliteRate)
            sqliteCPU.append(sqlite.cpu)
            queueCPU.append((batch.cpu, workerCPU, serverCPU))
            let perPage = 1000 / Double(options.pages)
            print(
                String(
                    format: "  round %d: SQLite trawl batch %.0f pages/s (%.2f s); two queue workers %.0f pages/s (%.2f s): %.2f",
                    round + 1, sqliteRate, sqlite.seconds, queueRate, queueSeconds, queueRate / sqliteRate))
            print(
                String(
                    format:
                        "           CPU per page: SQLite run trawl %.2f ms, cores busy %.0f%%; queue run trawl batch %.2f + trawl worker %.2f + PostgreSQL %.2f = %.2f ms, cores busy %.0f%%",
                    sqlite.cpu * perPage, sqliteShare * 100, batch.cpu * perPage, workerCPU * perPage, serverCPU * perPage,
                    (batch.cpu + workerCPU + serverCPU) * perPage, queueShare * 100))
        }
        guard !ratios.isEmpty else { return }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        print(
            String(
                format: "median: SQLite %.0f pages/s, two queue workers %.0f pages/s; ratio %.2f (range %.2f–%.2f over %d rounds) (goal >= 0.9)",
                median(sqliteRates), median(queueRates), median(ratios), ratios.min()!, ratios.max()!, ratios.count))
        let perPage = 1000 / Double(options.pages)
        let queueTotals = queueCPU.map { $0.batch + $0.worker + $0.server }
        print(
            String(
                format: "median CPU per page: SQLite run %.2f ms; queue run %.2f ms, of which PostgreSQL %.2f ms (the queue's extra CPU per page: %.2f ms)",
                median(sqliteCPU) * perPage, median(queueTotals) * perPage, median(queueCPU.map(\.server)) * perPage,
                (median(queueTotals) - median(sqliteCPU)) * perPage))
    }

    /// The share of the machine's cores busy (anything but idle, I/O wait and niced work) from its creation
    /// to ``share()``, from /proc/stat: what says whether a run was bound by CPU or by waiting.
    struct MachineBusy {
        private let start = Self.ticks()

        func share() -> Double {
            let now = Self.ticks()
            let busy = now.busy - start.busy
            let all = busy + now.idle - start.idle
            return all > 0 ? busy / all : 0
        }

        private static func ticks() -> (busy: Double, idle: Double) {
            guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") })
            else { return (0, 0) }
            // user nice system idle iowait irq softirq steal …; niced work (a fuzzer beside the
            // benchmark) yields to the run, so it counts as room the run left unused.
            let values = line.split(separator: " ").dropFirst().compactMap { Double($0) }
            guard values.count >= 8 else { return (0, 0) }
            return (values[0] + values[2] + values[5] + values[6] + values[7], values[1] + values[3] + values[4])
        }
    }

    /// WAL records and bytes written by the whole cluster, and the database's commits, so far.
    static func serverWrites(_ cluster: PostgresCluster, database: String) throws -> (wal: Int64, walBytes: Int64, commits: Int64) {
        let text = try cluster.psql(
            "SELECT wal_records, wal_bytes, (SELECT xact_commit FROM pg_stat_database WHERE datname = '\(database)') FROM pg_stat_wal")
        let fields = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").map { Int64($0) ?? 0 }
        guard fields.count == 3 else { return (0, 0, 0) }
        return (fields[0], fields[1], fields[2])
    }

    /// This process's peak resident set so far, in MB (Linux reports `ru_maxrss` in KiB).
    static func peakResidentMegabytes() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_maxrss) / 1024
    }

    /// User + system CPU seconds of this process so far.
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return BatchBenchmark.cpuSeconds(usage)
    }

    /// User + system CPU seconds of the cluster's server processes alive now (the postmaster
    /// and its children: backends, WAL writer, checkpointer), and of the children the
    /// postmaster has reaped (backends of connections that closed), from /proc.
    static func serverCPUSeconds(_ cluster: PostgresCluster) -> Double {
        let pidFile = cluster.folder.appendingPathComponent("data/postmaster.pid")
        guard let text = try? String(contentsOf: pidFile, encoding: .utf8), let postmaster = text.split(separator: "\n").first.flatMap({ Int($0) }) else {
            return 0
        }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var total = 0.0
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // Fields after the command name: state, ppid, …; utime and stime are fields 14 and 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 14, let parent = Int(fields[1]), pid == postmaster || parent == postmaster,
                let user = Double(fields[11]), let system = Double(fields[12])
            else { continue }
            total += (user + system) / ticks
            if pid == postmaster, let reapedUser = Double(fields[13]), let reapedSystem = Double(fields[14]) {
                total += (reapedUser + reapedSystem) / ticks
            }
        }
        return total
    }

    /// Starts a command with its output discarded and returns its pid (waited for by the caller).
    static func spawnDetached(_ arguments: [String]) throws -> pid_t {
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(.init(rawValue: spawned) ?? .EIO) }
        return pid
    }
}
