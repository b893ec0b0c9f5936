import Foundation

/// What the bytes of an index file say before SQLite opens it: a file of garbage or a file cut
/// short is found here, cheaply, instead of as a failed query later.
enum IndexFile {
    enum Health: Equatable {
        /// No file (or an empty one): a new index.
        case absent
        case looksSound
        /// Not an SQLite database, or shorter than its header says.
        case corrupt(String)
    }

    /// Reads the 100-byte header: the magic string, the page size, and the page count the file
    /// should hold (valid when the header's change counters agree).
    static func health(at path: String) -> Health {
        guard let handle = FileHandle(forReadingAtPath: path) else { return .absent }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size > 0 else { return .absent }
        try? handle.seek(toOffset: 0)
        guard let header = try? handle.read(upToCount: 100), header.count == 100 else {
            return .corrupt("the file is \(size) bytes, shorter than an SQLite header")
        }
        let bytes = [UInt8](header)
        guard bytes.starts(with: Array("SQLite format 3\u{0}".utf8)) else { return .corrupt("the file is not an SQLite database") }
        let rawPageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let pageSize = rawPageSize == 1 ? 65536 : rawPageSize
        guard pageSize >= 512, pageSize & (pageSize - 1) == 0 else { return .corrupt("the header names an impossible page size (\(rawPageSize))") }
        func word(_ at: Int) -> UInt32 { bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        let changeCounter = word(24)
        let pages = word(28)
        let validFor = word(92)
        if pages > 0, validFor == changeCounter, UInt64(pages) * UInt64(pageSize) > size {
            return .corrupt("the file is \(size) bytes but its header says \(UInt64(pages) * UInt64(pageSize)) (cut short)")
        }
        if size % UInt64(pageSize) != 0 { return .corrupt("the file is \(size) bytes, not a whole number of \(pageSize)-byte pages (cut short)") }
        return .looksSound
    }
}
