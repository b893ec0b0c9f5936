import Foundation

/// A case on disk: `<folder>/<site>/<name>.case.json` and the recording beside it,
/// `<name>.har`.
public struct RecordedCase: Sendable, Hashable, CustomStringConvertible {
    /// `<site>/<name>`.
    public var name: String
    public var site: String
    public var caseFile: URL
    public var archive: URL
    public var recordingCase: RecordingCase

    public var description: String { name }

    public init(name: String, site: String, caseFile: URL, archive: URL, recordingCase: RecordingCase) {
        self.name = name
        self.site = site
        self.caseFile = caseFile
        self.archive = archive
        self.recordingCase = recordingCase
    }

    /// Every case under `folder` (one level of site folders), sorted by name.
    /// - Throws: ``RecordingError`` for a malformed case file or a case without its `.har`.
    public static func all(in folder: URL) throws -> [RecordedCase] {
        let fm = FileManager.default
        var cases: [RecordedCase] = []
        let sites = (try? fm.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.isDirectoryKey])) ?? []
        for site in sites where (try? site.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
            for file in (try? fm.contentsOfDirectory(at: site, includingPropertiesForKeys: nil)) ?? [] where file.lastPathComponent.hasSuffix(".case.json") {
                let base = String(file.lastPathComponent.dropLast(".case.json".count))
                let archive = site.appendingPathComponent(base + ".har")
                guard fm.fileExists(atPath: archive.path) else {
                    throw RecordingError(.invalidCase, file: file.path, "no recording \(archive.lastPathComponent) beside it")
                }
                cases.append(RecordedCase(
                    name: "\(site.lastPathComponent)/\(base)", site: site.lastPathComponent, caseFile: file, archive: archive,
                    recordingCase: try RecordingCase.read(from: file)))
            }
        }
        return cases.sorted { $0.name < $1.name }
    }

    /// The files of `<folder>/<site>/<name>` (`name` is `site/name`).
    public static func files(named name: String, in folder: URL) -> (caseFile: URL, archive: URL) {
        let base = folder.appendingPathComponent(name)
        return (URL(fileURLWithPath: base.path + ".case.json"), URL(fileURLWithPath: base.path + ".har"))
    }
}
