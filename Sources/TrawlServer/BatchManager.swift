import Foundation
import Logging
import Trawl
import TrawlBatch
import TrawlCore
import TrawlStore

/// The server's batches. Each is a `trawl batch` run — a ``BatchRunner`` over its own SQLite
/// job store in the batch folder — so the API has the command's store, resumption and
/// exactly-once results: nothing about batches is done twice here.
///
/// A batch `ID` is three files: `ID.urls` (the list as posted), `ID.sqlite` (the store) and
/// `ID.jsonl` (the results, as `trawl batch --out` writes them). `trawl batch run --store
/// ID.sqlite --out ID.jsonl` can finish one by hand; a server started on the same folder goes
/// on with every batch left unfinished.
actor BatchManager {
    let directory: URL
    let configuration: BatchConfiguration
    let search: Trawl.Search
    let metrics: ServerMetrics
    let logger: Logger
    private var runs: [String: Task<Void, Never>] = [:]
    /// Batches whose run ended with an error of its own (the store could not be written…).
    private var failures: [String: String] = [:]
    /// Read-only handles on stores, for progress and results.
    private var stores: [String: JobStore] = [:]
    private var shuttingDown = false

    /// The folder is made when the first batch is posted.
    init(directory: URL, configuration: BatchConfiguration, search: Trawl.Search, metrics: ServerMetrics, logger: Logger) {
        self.directory = directory
        self.configuration = configuration
        self.search = search
        self.metrics = metrics
        self.logger = logger
    }

    /// Starts a batch over `urls` (one URL per line, as in a `trawl batch` list).
    /// - Returns: the new batch's id.
    func create(list: String) throws -> String {
        guard !shuttingDown else { throw APIError(.serviceUnavailable, code: "shutting-down", message: "the server is stopping") }
        let id = Self.newID()
        let listPath = path(id, "urls")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(list.utf8).write(to: URL(fileURLWithPath: listPath), options: .atomic)
        } catch {
            throw APIError(.internalServerError, code: "unwritable-output", message: "cannot keep the batch's list: \(ErrorSentence.reason(error))")
        }
        try start(id)
        metrics.recordBatchCreated()
        return id
    }

    /// Starts (or resumes) the run of batch `id`.
    private func start(_ id: String) throws {
        let runner: BatchRunner
        do {
            runner = try BatchRunner(
                configuration: configuration, storePath: path(id, "sqlite"), inputs: [path(id, "urls")], output: path(id, "jsonl"),
                search: search, logger: logger)
        } catch {
            throw APIError(.internalServerError, code: ErrorSummary(error).code, message: ErrorSentence.describe(error))
        }
        stores[id] = runner.store
        metrics.batchesRunning.increment()
        let logger = self.logger
        let metrics = self.metrics
        runs[id] = Task {
            defer { metrics.batchesRunning.decrement() }
            do {
                let report = try await runner.run(progress: nil)
                if report.interrupted { logger.info("batch stopped; it goes on when the server starts again", metadata: ["batch.id": "\(id)"]) }
                self.ended(id, failure: nil)
            } catch {
                logger.error("batch failed", metadata: ["batch.id": "\(id)", "error": "\(ErrorSentence.describe(error))"])
                self.ended(id, failure: ErrorSentence.describe(error))
            }
        }
    }

    private func ended(_ id: String, failure: String?) {
        runs[id] = nil
        if let failure { failures[id] = failure }
    }

    /// Resumes every batch in the folder that has work left (the server stopped mid-way).
    /// - Returns: the ids resumed.
    @discardableResult
    func resumeUnfinished() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var resumed: [String] = []
        for name in names.sorted() where name.hasSuffix(".sqlite") {
            let id = String(name.dropLast(".sqlite".count))
            guard Self.isValidID(id), runs[id] == nil, let existing = try? store(id), let progress = try? existing.progress(),
                progress.unfinished > 0 || !progress.intakeComplete
            else { continue }
            do {
                try start(id)
                resumed.append(id)
            } catch {
                logger.error("cannot resume batch", metadata: ["batch.id": "\(id)", "error": "\(error)"])
            }
        }
        return resumed
    }

    func status(_ id: String) throws -> BatchStatus {
        let store = try store(id)
        let progress: StoreProgress
        do {
            progress = try store.progress()
        } catch {
            throw APIError(.internalServerError, code: ErrorSummary(error).code, message: ErrorSentence.describe(error))
        }
        let state: String
        if let failure = failures[id] {
            return BatchStatus(id: id, state: "failed", progress: progress, error: failure)
        } else if runs[id] != nil {
            state = "running"
        } else if progress.unfinished == 0 && progress.intakeComplete {
            state = "finished"
        } else {
            state = "stopped"
        }
        return BatchStatus(id: id, state: state, progress: progress)
    }

    /// Whether batch `id` is still being worked.
    func isRunning(_ id: String) -> Bool { runs[id] != nil }

    /// Result lines after `seq` (each result once, in the order they were committed).
    func results(_ id: String, after seq: Int64, limit: Int) throws -> [(seq: Int64, line: String)] {
        let store = try store(id)
        do {
            return try store.results(after: seq, limit: limit)
        } catch {
            throw APIError(.internalServerError, code: ErrorSummary(error).code, message: ErrorSentence.describe(error))
        }
    }

    /// Stops every run (work in flight goes back to its store, as Ctrl-C does for `trawl
    /// batch`) and waits for them to write what is done.
    func shutdown() async {
        shuttingDown = true
        let tasks = Array(runs.values)
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    // MARK: Files

    private func store(_ id: String) throws -> JobStore {
        guard Self.isValidID(id) else { throw Self.unknown(id) }
        if let store = stores[id] { return store }
        let file = path(id, "sqlite")
        guard FileManager.default.fileExists(atPath: file) else { throw Self.unknown(id) }
        do {
            let store = try JobStore(path: file)
            stores[id] = store
            return store
        } catch {
            throw APIError(.internalServerError, code: ErrorSummary(error).code, message: ErrorSentence.describe(error))
        }
    }

    private func path(_ id: String, _ ext: String) -> String {
        directory.appendingPathComponent("\(id).\(ext)").path
    }

    static func unknown(_ id: String) -> APIError {
        APIError(.notFound, code: "not-found", message: "no batch '\(ResolveParameters.shown(id))' on this server")
    }

    /// Sixteen lower-case hex digits: nothing else ever reaches a file name.
    static func isValidID(_ id: String) -> Bool {
        id.utf8.count == 16 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    static func newID() -> String {
        String(UUID().uuidString.lowercased().filter { $0 != "-" }.prefix(16))
    }
}
