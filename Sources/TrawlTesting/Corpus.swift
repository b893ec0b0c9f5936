public import Foundation

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

    /// Throws ``CorpusError`` naming the folder and `TRAWL_CORPUS` unless the corpus is there.
    /// Tests that read the corpus call this (or a reader below, which does) so that a missing
    /// corpus fails them instead of leaving them nothing to check.
    public static func requireAvailable() throws {
        guard isAvailable else { throw CorpusError(root: root, "sites/manifest.json is missing") }
    }

    /// The pages of `generic/`, sorted by name.
    /// - Throws: ``CorpusError`` when the corpus or the folder is missing or holds no page.
    public static func genericPages() throws -> [URL] {
        try requireAvailable()
        let folder = root.appendingPathComponent("generic")
        let pages: [URL]
        do {
            pages = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
                .filter { $0.pathExtension == "html" }
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
        } catch {
            throw CorpusError(root: root, "generic/ cannot be read: \(error.localizedDescription)")
        }
        guard !pages.isEmpty else { throw CorpusError(root: root, "generic/ holds no .html page") }
        return pages
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

    /// The entries of `sites/manifest.json`; use it in `@Test(arguments: try Corpus.siteEntries())`,
    /// where an error fails the test.
    /// - Throws: ``CorpusError`` when the corpus is missing or the manifest lists nothing.
    public static func siteEntries() throws -> [SiteEntry] {
        try requireAvailable()
        let data = try Data(contentsOf: root.appendingPathComponent("sites/manifest.json"))
        let entries = try JSONDecoder().decode([SiteEntry].self, from: data)
        guard !entries.isEmpty else { throw CorpusError(root: root, "sites/manifest.json lists no entry") }
        return entries
    }
}

/// The corpus is not where the tests look for it: the message names the folder and the
/// variable that moves it, so a test never passes by finding nothing to check.
public struct CorpusError: Error, Sendable, Hashable, CustomStringConvertible {
    public var root: String
    public var reason: String

    public init(root: URL, _ reason: String) {
        self.root = root.path
        self.reason = reason
    }

    public var description: String {
        "the corpus at \(root) is unusable (\(reason)): put shared/corpus beside the repository or set TRAWL_CORPUS to its folder"
    }
}
