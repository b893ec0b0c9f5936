import Glibc

/// Splits a byte stream into NUL-terminated messages (the DevTools pipe's framing) without ever
/// scanning a byte twice: a multi-megabyte DOM dump arriving in 256 KiB reads is searched once,
/// and only the unfinished tail is moved when a message completes.
struct MessageFramer {
    private var buffer: [UInt8] = []
    /// Bytes before this index hold no NUL (already searched).
    private var scanned = 0

    /// Appends `bytes` and hands each completed message (without its NUL) to `emit`.
    mutating func append(_ bytes: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) -> Void) {
        buffer.append(contentsOf: bytes)
        var start = 0
        buffer.withUnsafeBytes { raw in
            while scanned < raw.count {
                let rest = raw.count - scanned
                guard let hit = memchr(raw.baseAddress! + scanned, 0, rest) else {
                    scanned = raw.count
                    break
                }
                let end = raw.baseAddress!.distance(to: UnsafeRawPointer(hit))
                emit(UnsafeRawBufferPointer(rebasing: raw[start..<end]))
                start = end + 1
                scanned = start
            }
        }
        if start > 0 {
            buffer.removeFirst(start)
            scanned -= start
        }
    }

    /// Bytes of an unfinished message held.
    var pendingCount: Int { buffer.count }
}
