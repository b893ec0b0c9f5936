import Foundation

/// The real pages in `../shared/corpus` (or `$TRAWL_CORPUS`), read at test and benchmark time.
/// They are third-party files: read them, never copy them into the repository.
public enum Corpus {
    /// The corpus folder: `$TRAWL_CORPUS`, else `shared/corpus` beside the repository.
    public static var root: URL {
        if let path = ProcessInfo.processInfo.environment["TRAWL_CORPUS"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
    }

    /// The repository's top folder, found from this source file's path.
    public static var repositoryRoot: URL {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }

    public static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent("sites/manifest.json").path)
    }

    /// The pages of `generic/`, sorted by name.
    public static func genericPages() throws -> [URL] {
        let folder = root.appendingPathComponent("generic")
        return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "html" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// One entry of `sites/manifest.json`.
    public struct SiteEntry: Sendable, Codable, Hashable, CustomStringConvertible {
        public var file: String
        public var site: String
        public var original_url: String
        public var kind: String
        public var expected_media: [String]
        public var notes: String?

        public var description: String { file }

        /// The original URL without the manifest's remarks (`… (recorded from …)`).
        public var url: String { String(original_url.split(separator: " ").first ?? "") }

        public var path: URL { Corpus.root.appendingPathComponent("sites").appendingPathComponent(file) }
    }

    public static func siteEntries() throws -> [SiteEntry] {
        let data = try Data(contentsOf: root.appendingPathComponent("sites/manifest.json"))
        return try JSONDecoder().decode([SiteEntry].self, from: data)
    }

    /// Manifest entries, or none when the corpus is missing (for `@Test(arguments:)`).
    public static var siteEntriesOrEmpty: [SiteEntry] { (try? siteEntries()) ?? [] }
}
