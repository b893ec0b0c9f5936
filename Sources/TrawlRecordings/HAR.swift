public import Foundation
import TrawlCore

/// An HTTP Archive (HAR 1.2), the format browser devtools, Playwright and proxies write: what
/// Trawl records and replays.
///
/// Reading is lenient where other tools differ (missing `cookies`, `cache` or `timings`,
/// `null` sizes) and strict where replay needs a field (every entry's request method and URL,
/// its response status). Trawl's own fields start with `_`, as the format allows.
///
/// ```swift
/// let har = try HAR.read(from: URL(fileURLWithPath: "Recordings/giphy/gif-page.har"))
/// for entry in har.log.entries { print(entry.request.method, entry.request.url) }
/// ```
public struct HAR: Sendable, Codable, Hashable {
    public var log: Log

    public init(log: Log = Log()) { self.log = log }

    /// The archive's one top-level object.
    public struct Log: Sendable, Codable, Hashable {
        public var version: String
        public var creator: Creator
        public var pages: [Page]?
        public var entries: [HAREntry]
        public var comment: String?

        public init(version: String = "1.2", creator: Creator = .trawl, pages: [Page]? = nil, entries: [HAREntry] = [], comment: String? = nil) {
            self.version = version
            self.creator = creator
            self.pages = pages
            self.entries = entries
            self.comment = comment
        }

        private enum CodingKeys: String, CodingKey { case version, creator, pages, entries, comment }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            version = try container.decodeIfPresent(String.self, forKey: .version) ?? "1.2"
            creator = try container.decodeIfPresent(Creator.self, forKey: .creator) ?? Creator(name: "unknown", version: "")
            pages = try container.decodeIfPresent([Page].self, forKey: .pages)
            entries = try container.decode([HAREntry].self, forKey: .entries)
            comment = try container.decodeIfPresent(String.self, forKey: .comment)
        }
    }

    /// The program that wrote the archive.
    public struct Creator: Sendable, Codable, Hashable {
        public var name: String
        public var version: String
        public var comment: String?

        public init(name: String, version: String, comment: String? = nil) {
            self.name = name
            self.version = version
            self.comment = comment
        }

        public static let trawl = Creator(name: "Trawl", version: "0.1")

        private enum CodingKeys: String, CodingKey { case name, version, comment }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decodeIfPresent(String.self, forKey: .name) ?? "unknown"
            version = try container.decodeIfPresent(String.self, forKey: .version) ?? ""
            comment = try container.decodeIfPresent(String.self, forKey: .comment)
        }
    }

    /// A page of a browser session; kept so archives from browsers round-trip.
    public struct Page: Sendable, Codable, Hashable {
        public var startedDateTime: String
        public var id: String
        public var title: String
        public var pageTimings: [String: Double?]?
        public var comment: String?
    }
}

extension HAR {
    /// Reads an archive from a file.
    /// - Throws: ``RecordingError`` naming the file and what is wrong with it.
    public static func read(from file: URL) throws -> HAR {
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw RecordingError(.unreadable, file: file.path, ErrorSentence.reason(error), underlying: error)
        }
        return try decode(data, file: file.path)
    }

    /// Decodes an archive; `file` only names it in errors.
    public static func decode(_ data: Data, file: String = "<memory>") throws -> HAR {
        do {
            return try JSONDecoder().decode(HAR.self, from: data)
        } catch let error as DecodingError {
            throw RecordingError(.invalidHAR, file: file, RecordingError.describe(error))
        } catch {
            throw RecordingError(.invalidHAR, file: file, "\(error)")
        }
    }

    /// The archive as JSON: pretty, keys sorted, so a re-recorded case diffs line by line.
    public func encoded() throws -> Data {
        var data = try TrawlJSON.encoder(pretty: true).encode(self)
        data.append(0x0A)
        return data
    }

    /// Writes the archive, creating the folder if needed.
    public func write(to file: URL) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoded().write(to: file, options: .atomic)
    }
}
