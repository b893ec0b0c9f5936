import Foundation
import TrawlStore

/// Reads a URL list into the store a chunk at a time, each chunk with its line count in one
/// transaction, so a killed run resumes reading at the first line it had not committed.
actor Intake {
    /// What one chunk added.
    struct Chunk: Sendable {
        /// Hosts that got new jobs.
        var hosts: Set<String>
        /// New jobs (lines that repeat a known URL are not new).
        var added: Int
        var finished: Bool
    }

    let source: String
    private let reader: LineReader?
    private let store: JobStore
    private let chunkSize: Int
    private let maxLineLength: Int
    private var lineNumber: Int
    private var finished: Bool
    /// An earlier run read the whole list already: nothing to read.
    nonisolated let completeAtStart: Bool

    /// - Parameters:
    ///   - path: a file, or `-` for standard input.
    init(path: String, store: JobStore, configuration: BatchConfiguration) throws {
        self.store = store
        chunkSize = configuration.intakeChunk
        maxLineLength = configuration.maxLineLength
        source = path == "-" ? "-" : URL(fileURLWithPath: path).standardizedFileURL.path
        let mark = try store.intake(of: source)
        lineNumber = mark.linesRead
        finished = mark.complete
        completeAtStart = mark.complete
        if finished {
            reader = nil
            return
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
        let reader = LineReader(handle: handle, maxLength: configuration.maxLineLength)
        // Lines committed by an earlier run are skipped, not read again into jobs.
        for _ in 0..<mark.linesRead where try reader.next() != nil {}
        self.reader = reader
    }

    /// Reads and commits the next chunk.
    func next() throws -> Chunk {
        guard let reader, !finished else { return Chunk(hosts: [], added: 0, finished: true) }
        var jobs: [NewJob] = []
        var hosts: Set<String> = []
        var read = 0
        while read < chunkSize, let line = try reader.next() {
            read += 1
            let number = lineNumber + read
            switch BatchInput.classify(line, maxLength: maxLineLength) {
            case .skip:
                continue
            case .url(let input, let normalized, let host):
                jobs.append(NewJob(key: normalized, input: input, url: normalized, host: host))
                hosts.insert(host)
            case .rejected(let input, let code, let reason):
                let result = BatchResultLine(
                    input: input, url: nil, status: "failed", error: .init(code: code, message: "line \(number): \(reason)"), attempts: 0)
                jobs.append(NewJob(
                    key: "line:\(source):\(number)", input: input, url: nil, host: nil,
                    rejection: JobResult(line: result.encoded(), errorCode: code)))
            }
        }
        lineNumber += read
        let done = read < chunkSize
        let added = try store.add(jobs, source: source, linesRead: lineNumber, complete: done, now: Date().timeIntervalSince1970)
        finished = done
        return Chunk(hosts: hosts, added: added, finished: done)
    }
}
