public import Foundation
import TrawlCore

/// Responses on disk, one file per URL: a length-prefixed JSON ``CacheEntry`` followed by the
/// body, written to a temporary file and renamed into place, so a reader (or a run killed
/// mid-write) never sees half an entry.
public final class HTTPCache: Sendable {
    public let directory: URL

    public init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The stored response for `url`, with its body.
    ///
    /// Read in its parts, so the body lands in one buffer of its own: reading the whole file
    /// and cutting the body out of it would hold it twice.
    func entry(for url: String) -> (CacheEntry, Data)? {
        guard let handle = FileHandle(forReadingAtPath: file(for: url).path) else { return nil }
        defer { try? handle.close() }
        guard let prefix = try? handle.read(upToCount: 8), prefix.count == 8 else { return nil }
        let length = prefix.reduce(0) { $0 << 8 | Int($1) }
        guard length > 0, length <= Self.maxEntryLength, let meta = try? handle.read(upToCount: length), meta.count == length,
            let entry = try? JSONDecoder().decode(CacheEntry.self, from: meta),
            entry.url == url
        else { return nil }
        guard let body = try? handle.readToEnd() else { return (entry, Data()) }
        return (entry, body)
    }

    /// The longest entry description read: a length past it is a damaged file, not an entry.
    static let maxEntryLength = 16 << 20

    /// Stores (or replaces) the response for ``CacheEntry/url``.
    func store(_ entry: CacheEntry, body: Data) throws {
        let meta = try JSONEncoder().encode(entry)
        var head = Data(capacity: 8 + meta.count)
        for shift in stride(from: 56, through: 0, by: -8) { head.append(UInt8(truncatingIfNeeded: meta.count >> shift)) }
        head.append(meta)
        let target = file(for: entry.url)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString)")
        // The head and the body are written one after the other, never joined: joining them
        // would hold a second copy of the body while it is written.
        do {
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            try handle.write(contentsOf: head)
            try handle.write(contentsOf: body)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        if rename(temporary.path, target.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown)
        }
    }

    func remove(_ url: String) {
        try? FileManager.default.removeItem(at: file(for: url))
    }

    /// `ab/abcdef….entry`: a 64-bit FNV-1a hash of the URL, fanned out over 256 folders.
    private func file(for url: String) -> URL {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        let name = String(hash, radix: 16)
        let padded = String(repeating: "0", count: 16 - name.count) + name
        return directory.appendingPathComponent(String(padded.prefix(2))).appendingPathComponent(padded + ".entry")
    }
}
