import Foundation

/// Reads a file (or standard input) a line at a time in fixed-size pieces, so a list of
/// millions of URLs, or one line of gigabytes, never sits in memory whole.
///
/// A line longer than `maxLength` bytes is cut: its first `maxLength + 1` bytes are kept and
/// the rest is skipped up to the next newline, so the caller can report it without holding it.
///
/// Each refill is one `read(2)`: from a pipe it returns what the writer has written so far, so
/// ``isWaitingForWriter`` tells the caller that the next line may be a while.
final class LineReader {
    private let handle: FileHandle
    private let maxLength: Int
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    private var lastReadWasShort = false
    private let pieceSize = 64 * 1024

    init(handle: FileHandle, maxLength: Int) {
        self.handle = handle
        self.maxLength = maxLength
    }

    /// The next line without its `\n` (or `\r\n`), `nil` at the end.
    func next() throws -> [UInt8]? {
        var line: [UInt8] = []
        var sawAny = false
        while true {
            if position == buffer.count {
                if atEnd { return sawAny ? Self.trimCR(line) : nil }
                try refill()
                continue
            }
            sawAny = true
            let rest = buffer[position...]
            if let newline = rest.firstIndex(of: 0x0A) {
                append(rest[position..<newline], to: &line)
                position = newline + 1
                return Self.trimCR(line)
            }
            append(rest, to: &line)
            position = buffer.count
        }
    }

    private func append(_ bytes: ArraySlice<UInt8>, to line: inout [UInt8]) {
        let room = maxLength + 1 - line.count
        if room > 0 { line += bytes.prefix(room) }
    }

    /// Every byte read so far is handed out and the last read returned less than it asked
    /// for: the source (a pipe) had nothing more at that moment.
    var isWaitingForWriter: Bool { position == buffer.count && lastReadWasShort && !atEnd }

    private func refill() throws {
        // A pipe may stay quiet for long: wait for it in slices, so a run that is stopped
        // (Ctrl-C) is not held by a writer that has nothing more to say. A file is always ready.
        while true {
            try Task.checkCancellation()
            var waiting = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, 200)
            if ready > 0 || (ready < 0 && errno != EINTR) { break }  // readable, closed, or an error read(2) will report
        }
        buffer = [UInt8](repeating: 0, count: pieceSize)
        var count = 0
        while true {
            count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, pieceSize) }
            if count >= 0 || errno != EINTR { break }
        }
        guard count >= 0 else {
            throw BatchError(.unreadableInput, "cannot read the URL list: \(String(cString: strerror(errno)))")
        }
        buffer.removeLast(pieceSize - count)
        position = 0
        lastReadWasShort = count < pieceSize
        if count == 0 { atEnd = true }
    }

    private static func trimCR(_ line: [UInt8]) -> [UInt8] {
        line.last == 0x0D ? Array(line.dropLast()) : line
    }
}
