import Foundation
import TrawlCore
public import TrawlStore

/// Reads a URL list into the store a chunk at a time, each chunk with its line count in one
/// transaction, so a killed run resumes reading at the first line it had not committed.
///
/// A file is always read on from where the store says it was left, also when an earlier run
/// read it to its end: lines appended since join the store (done URLs are not redone, they
/// coalesce). Standard input is a new stream each run: it is read from its first line, and
/// URLs the store knows coalesce.
///
/// Reading blocks (standard input waits for its writer), so the actor runs on a queue of its
/// own; a chunk also ends when a pipe has no more lines for now, so URLs written one at a time
/// are fetched as they come, not once 2,000 have gathered.
public actor Intake {
    /// What one chunk added.
    public struct Chunk: Sendable {
        /// Hosts that got new jobs.
        public var hosts: Set<String>
        /// New jobs (lines that repeat a known URL are not new), rejected lines included.
        public var added: Int
        /// New rejected lines (bad URLs, bad bytes): failed from the start.
        public var rejected: Int
        public var finished: Bool
    }

    public nonisolated let source: String
    private let reader: LineReader?
    private let store: any IntakeStore
    private let chunkSize: Int
    private let maxLineLength: Int
    /// Pages may be rendered: a URL's fragment is part of its job (``BatchInput/classify(_:maxLength:keepsFragment:)``).
    private let keepsFragments: Bool
    private var lineNumber: Int
    private var finished = false
    /// Lines an earlier run committed, skipped before the first chunk.
    private var linesToSkip: Int
    private let executor = DedicatedQueueExecutor(label: "trawl.batch.intake")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// - Parameters:
    ///   - path: a file, or `-` for standard input.
    public init(path: String, store: any IntakeStore, configuration: BatchConfiguration) async throws {
        self.store = store
        chunkSize = configuration.intakeChunk
        maxLineLength = configuration.maxLineLength
        keepsFragments = configuration.resolve.browser != .never
        source = path == "-" ? "-" : URL(fileURLWithPath: path).standardizedFileURL.path
        if source == "-" {
            lineNumber = 0
            linesToSkip = 0
        } else {
            let mark = try await store.intake(of: source)
            lineNumber = mark.linesRead
            linesToSkip = mark.linesRead
        }
        let handle: FileHandle
        if path == "-" {
            handle = .standardInput
        } else {
            guard let file = FileHandle(forReadingAtPath: path) else {
                throw BatchError(.unreadableInput, "cannot read the URL list '\(path)'")
            }
            handle = file
        }
        reader = LineReader(handle: handle, maxLength: configuration.maxLineLength)
    }

    /// Reads and commits the next chunk.
    public func next() async throws -> Chunk {
        guard let reader, !finished else { return Chunk(hosts: [], added: 0, rejected: 0, finished: true) }
        // Lines committed by an earlier run are skipped, not read again into jobs.
        while linesToSkip > 0, try reader.next() != nil { linesToSkip -= 1 }
        linesToSkip = 0
        var jobs: [NewJob] = []
        var hosts: Set<String> = []
        var read = 0
        var ended = false
        // The first chunk is small, so the first fetches start while the rest is read.
        let size = lineNumber == 0 ? min(chunkSize, 64) : chunkSize
        while read < size {
            if read > 0, reader.isWaitingForWriter { break }
            guard let line = try reader.next() else {
                ended = true
                break
            }
            read += 1
            let number = lineNumber + read
            switch BatchInput.classify(line, maxLength: maxLineLength, keepsFragment: keepsFragments) {
            case .skip:
                continue
            case .url(let input, let normalized, let host):
                jobs.append(NewJob(key: normalized, input: input, url: normalized, host: host))
                hosts.insert(host)
            case .rejected(let input, let code, let reason):
                let result = BatchResultLine(
                    input: input, url: nil, status: "failed", error: .init(code: code, message: "line \(number): \(reason)"), attempts: 0)
                // Keyed by what the line says: the same bad line in a later run, or in another
                // list, is the same job and is reported once.
                jobs.append(
                    NewJob(
                        key: "rejected:\(input)", input: input, url: nil, host: nil,
                        rejection: JobResult(line: result.encoded(), errorCode: code)))
            }
        }
        lineNumber += read
        let done = ended
        let counts = try await store.addCounting(jobs, source: source, linesRead: lineNumber, complete: done, now: Date().timeIntervalSince1970)
        finished = done
        return Chunk(hosts: hosts, added: counts.added, rejected: counts.rejected, finished: done)
    }
}
