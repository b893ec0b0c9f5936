import Foundation
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
    func entry(for url: String) -> (CacheEntry, Data)? {
        guard let data = try? Data(contentsOf: file(for: url)), data.count >= 8 else { return nil }
        let length = data.prefix(8).reduce(0) { $0 << 8 | Int($1) }
        guard length > 0, 8 + length <= data.count,
            let entry = try? JSONDecoder().decode(CacheEntry.self, from: data.subdata(in: 8..<(8 + length))),
            entry.url == url
        else { return nil }
        return (entry, data.subdata(in: (8 + length)..<data.count))
    }

    /// Stores (or replaces) the response for ``CacheEntry/url``.
    func store(_ entry: CacheEntry, body: Data) throws {
        let meta = try JSONEncoder().encode(entry)
        var data = Data(capacity: 8 + meta.count + body.count)
        for shift in stride(from: 56, through: 0, by: -8) { data.append(UInt8(truncatingIfNeeded: meta.count >> shift)) }
        data.append(meta)
        data.append(body)
        let target = file(for: entry.url)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString)")
        try data.write(to: temporary)
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
