import Foundation
public import TrawlStore

#if canImport(Glibc)
import Glibc
#endif

/// The JSON-lines output, kept exactly in step with the store.
///
/// Results are numbered in the store as they commit. The file is appended in that order, synced,
/// and only then is the watermark (last number, file length) recorded. After a crash the file
/// is cut back to the watermark, dropping lines written but not recorded, and the results after
/// it are appended again: every result appears once, whenever the process died.
public final class OutputFile {
    public let path: String
    private let store: any ResultStore
    private let descriptor: Int32
    private var mark: OutputMark

    /// Opens (creating if needed) the output at `path` and cuts it back to the store's watermark.
    public static func open(path: String, store: any ResultStore) async throws -> OutputFile {
        let standardized = URL(fileURLWithPath: path).standardizedFileURL.path
        let mark = try await store.outputMark(for: standardized)
        let file = try OutputFile(path: path, store: store, mark: mark)
        try await store.setOutputMark(file.mark, for: file.path)
        return file
    }

    private init(path: String, store: any ResultStore, mark: OutputMark) throws {
        self.path = URL(fileURLWithPath: path).standardizedFileURL.path
        self.store = store
        let fd = openFile(self.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw BatchError(.unwritableOutput, "cannot open the output '\(path)': \(String(cString: strerror(errno)))")
        }
        descriptor = fd
        var mark = mark
        let size = Int64(lseek(fd, 0, SEEK_END))
        if size < mark.bytes {
            // The file lost lines the store says it had (replaced, truncated): write it anew.
            mark = OutputMark(seq: 0, bytes: 0)
        }
        guard ftruncate(fd, off_t(mark.bytes)) == 0, lseek(fd, off_t(mark.bytes), SEEK_SET) >= 0 else {
            close(fd)
            throw BatchError(.unwritableOutput, "cannot trim the output '\(path)' to its last good line: \(String(cString: strerror(errno)))")
        }
        self.mark = mark
    }

    deinit { close(descriptor) }

    /// Appends every result the store has that the file lacks; returns how many.
    /// - Parameter whileBusy: stop after a read that came back short of a full chunk, rather
    ///   than read until nothing is left: while workers keep finishing, each read finds a few
    ///   new results, and each of those chunks costs a sync of the file and a durable commit of
    ///   the mark. The next call takes what came meanwhile.
    @discardableResult
    public func catchUp(whileBusy: Bool = false) async throws -> Int {
        var written = 0
        let limit = 1024
        while true {
            let rows = try await store.results(after: mark.seq, limit: limit)
            guard let last = rows.last else { break }
            var chunk = Data()
            for row in rows {
                chunk.append(contentsOf: row.line.utf8)
                chunk.append(0x0A)
            }
            do {
                try writeAll(chunk)
            } catch {
                // Leave no partial line behind the watermark for the next append to follow.
                _ = ftruncate(descriptor, off_t(mark.bytes))
                _ = lseek(descriptor, off_t(mark.bytes), SEEK_SET)
                throw error
            }
            guard fsync(descriptor) == 0 else {
                throw BatchError(.unwritableOutput, "cannot sync the output '\(path)': \(String(cString: strerror(errno)))")
            }
            mark = OutputMark(seq: last.seq, bytes: mark.bytes + Int64(chunk.count))
            try await store.setOutputMark(mark, for: path)
            written += rows.count
            if whileBusy, rows.count < limit { break }
        }
        return written
    }

    private func writeAll(_ data: Data) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let n = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw BatchError(.unwritableOutput, "cannot write the output '\(path)': \(String(cString: strerror(errno)))")
                }
                offset += n
            }
        }
    }
}

/// `open(2)`, by a name `OutputFile.open(path:store:)` does not hide.
private func openFile(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}
