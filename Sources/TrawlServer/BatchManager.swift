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
/// `ID.jsonl` (the results, as `trawl batch --out` writes them), and `ID.probe` when it was
/// posted with `probe=true` (its probe options, so a resumed run probes as the first did). `trawl batch run --store
/// ID.sqlite --out ID.jsonl` can finish one by hand; a server started on the same folder goes
/// on with every batch left unfinished.
///
/// Batches cost descriptors, memory and disk, so the manager bounds them: at most
/// ``BatchLimits/maxRunning`` run at once (``BatchLimits/maxRunningPerClient`` per client), at
/// most ``BatchLimits/maxStored`` are kept (``BatchLimits/maxStoredPerClient`` per client), a
/// finished batch is deleted ``BatchLimits/timeToLive`` after it finished, and any batch can be
/// deleted by its id. A batch's job store is open only while it runs or is being read.
actor BatchManager {
    let directory: URL
    let configuration: BatchConfiguration
    let search: TrawlConfiguration.Search
    let metrics: ServerMetrics
    let logger: Logger
    let limits: BatchLimits
    private var runs: [String: Task<Void, Never>] = [:]
    /// Batches whose run ended with an error of its own (the store could not be written…).
    private var failures: [String: String] = [:]
    /// The stores of running batches, for progress and results while they run (a finished
    /// batch's store is opened for each read and closed after it).
    private var stores: [String: JobStore] = [:]
    /// Who posted each batch this process knows of (batches found in the folder at start have
    /// no owner: they count towards the server's caps, not a client's).
    private var owners: [String: String] = [:]
    private var shuttingDown = false

    /// The folder is made when the first batch is posted.
    init(
        directory: URL, configuration: BatchConfiguration, search: TrawlConfiguration.Search, metrics: ServerMetrics, logger: Logger,
        limits: BatchLimits = BatchLimits()
    ) {
        self.directory = directory
        self.configuration = configuration
        self.search = search
        self.metrics = metrics
        self.logger = logger
        self.limits = limits
    }

    /// Starts a batch over `urls` (one URL per line, as in a `trawl batch` list) for `client`,
    /// each page's media probed when `probe` is given (`trawl batch --probe`).
    /// - Returns: the new batch's id.
    /// - Throws: `429 too-many-batches` when the client is at its cap of running or kept
    ///   batches, `503 server-busy` when the server is at its own.
    func create(list: String, probe: MediaProber.Options? = nil, client: String = "local") throws -> String {
        guard !shuttingDown else { throw APIError(.serviceUnavailable, code: "shutting-down", message: "the server is stopping") }
        try admit(client)
        let id = Self.newID()
        let listPath = path(id, "urls")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(list.utf8).write(to: URL(fileURLWithPath: listPath), options: .atomic)
            if let probe {
                let saved = SavedProbe(renditions: probe.renditions, keepDead: probe.keepDead)
                try JSONEncoder().encode(saved).write(to: URL(fileURLWithPath: path(id, "probe")), options: .atomic)
            }
        } catch {
            throw APIError(.internalServerError, code: "unwritable-output", message: "cannot keep the batch's list: \(ErrorSentence.reason(error))")
        }
        do {
            try start(id)
        } catch {
            removeFiles(id)
            throw error
        }
        owners[id] = client
        metrics.recordBatchCreated()
        return id
    }

    /// Refuses a new batch from `client` when it, or the server, is at a cap.
    private func admit(_ client: String) throws {
        let mine = owners.filter { $0.value == client }.map(\.key)
        if mine.count(where: { runs[$0] != nil }) >= limits.maxRunningPerClient {
            throw APIError(
                .tooManyRequests, code: "too-many-batches",
                message: "this client has \(limits.maxRunningPerClient) batches running; wait for one to finish or delete one (DELETE /v1/batches/ID)",
                headers: [.retryAfter: "30"])
        }
        if mine.count >= limits.maxStoredPerClient {
            throw APIError(
                .tooManyRequests, code: "too-many-batches",
                message: "this client keeps \(limits.maxStoredPerClient) batches; delete one it no longer needs (DELETE /v1/batches/ID)",
                headers: [.retryAfter: "60"])
        }
        if runs.count >= limits.maxRunning {
            throw APIError(
                .serviceUnavailable, code: "server-busy",
                message: "\(limits.maxRunning) batches are running on this server; try again later", headers: [.retryAfter: "30"])
        }
        if storedIDs().count >= limits.maxStored {
            throw APIError(
                .serviceUnavailable, code: "server-busy",
                message: "this server keeps \(limits.maxStored) batches, its most; try again once older ones expire", headers: [.retryAfter: "300"])
        }
    }

    /// Starts (or resumes) the run of batch `id`.
    private func start(_ id: String) throws {
        let runner: BatchRunner
        var configuration = self.configuration
        if let data = FileManager.default.contents(atPath: path(id, "probe")), let saved = try? JSONDecoder().decode(SavedProbe.self, from: data) {
            var probe = configuration.resolve.probe ?? MediaProber.Options()
            probe.renditions = saved.renditions
            probe.keepDead = saved.keepDead
            configuration.resolve.probe = probe
        }
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

    /// The run of `id` is over: its store is closed (the runner's went with its task).
    private func ended(_ id: String, failure: String?) {
        runs[id] = nil
        stores[id] = nil
        if let failure { failures[id] = failure }
    }

    /// Resumes every batch in the folder that has work left (the server stopped mid-way).
    /// - Returns: the ids resumed.
    @discardableResult
    func resumeUnfinished() -> [String] {
        var resumed: [String] = []
        for id in storedIDs().sorted() {
            guard runs[id] == nil, let progress = try? withStore(id, { try $0.progress() }),
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
        let progress = try withStore(id) { store in
            do {
                return try store.progress()
            } catch {
                throw APIError(.internalServerError, code: ErrorSummary(error).code, message: ErrorSentence.describe(error))
            }
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

    /// Returns once the run of batch `id` is over (at once when it is not running): what a
    /// caller that must act on a batch's end awaits (a test, a shutdown, a client's long poll)
    /// instead of asking ``isRunning(_:)`` over and over.
    func waitUntilEnded(_ id: String) async {
        await runs[id]?.value
    }

    /// Result lines after `seq` (each result once, in the order they were committed).
    func results(_ id: String, after seq: Int64, limit: Int) throws -> [(seq: Int64, line: String)] {
        try withStore(id) { store in
            do {
                return try store.results(after: seq, limit: limit)
            } catch {
                throw APIError(.internalServerError, code: ErrorSummary(error).code, message: ErrorSentence.describe(error))
            }
        }
    }

    /// Deletes batch `id`: stops its run if it is running, then removes its files.
    /// - Throws: `404 not-found` for an unknown id.
    func delete(_ id: String) async throws {
        guard Self.isValidID(id), runs[id] != nil || FileManager.default.fileExists(atPath: path(id, "sqlite")) else {
            throw Self.unknown(id)
        }
        if let run = runs[id] {
            run.cancel()
            await run.value
        }
        forget(id)
        removeFiles(id)
        metrics.recordBatchDeleted()
    }

    /// Deletes the batches that finished (or failed) longer than ``BatchLimits/timeToLive`` ago,
    /// judged by when their results file was last written.
    /// - Returns: the ids deleted.
    @discardableResult
    func expire(now: Date = Date()) -> [String] {
        guard let timeToLive = limits.timeToLive else { return [] }
        let seconds = Double(timeToLive.components.seconds) + Double(timeToLive.components.attoseconds) / 1e18
        var expired: [String] = []
        for id in storedIDs() where runs[id] == nil {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path(id, "jsonl"))
            let written = (attributes?[.modificationDate] as? Date) ?? .distantPast
            guard now.timeIntervalSince(written) >= seconds, failures[id] != nil || isFinished(id) else { continue }
            forget(id)
            removeFiles(id)
            metrics.recordBatchDeleted()
            expired.append(id)
        }
        return expired
    }

    private func isFinished(_ id: String) -> Bool {
        guard let progress = try? withStore(id, { try $0.progress() }) else { return false }
        return progress.unfinished == 0 && progress.intakeComplete
    }

    private func forget(_ id: String) {
        stores[id] = nil
        failures[id] = nil
        owners[id] = nil
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

    /// Runs `body` with the store of batch `id`: the running batch's, or one opened for this
    /// read and closed after it.
    private func withStore<Value>(_ id: String, _ body: (JobStore) throws -> Value) throws -> Value {
        guard Self.isValidID(id) else { throw Self.unknown(id) }
        if let store = stores[id] { return try body(store) }
        let file = path(id, "sqlite")
        guard FileManager.default.fileExists(atPath: file) else { throw Self.unknown(id) }
        let store: JobStore
        do {
            store = try JobStore(path: file)
        } catch {
            throw APIError(.internalServerError, code: ErrorSummary(error).code, message: ErrorSentence.describe(error))
        }
        return try body(store)
    }

    /// The ids of the batches in the folder.
    private func storedIDs() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.compactMap { name in
            guard name.hasSuffix(".sqlite") else { return nil }
            let id = String(name.dropLast(".sqlite".count))
            return Self.isValidID(id) ? id : nil
        }
    }

    /// Removes every file of batch `id` (its store's journal files too).
    private func removeFiles(_ id: String) {
        for ext in ["urls", "probe", "jsonl", "sqlite", "sqlite-wal", "sqlite-shm", "sqlite.lock"] {
            try? FileManager.default.removeItem(atPath: path(id, ext))
        }
    }

    private func path(_ id: String, _ ext: String) -> String {
        directory.appendingPathComponent("\(id).\(ext)").path
    }

    /// A batch's probe options as `ID.probe` keeps them.
    struct SavedProbe: Codable {
        var renditions: Bool
        var keepDead: Bool
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
