public import Foundation

/// A case on disk: `<folder>/<site>/<name>.case.json` and the recording beside it,
/// `<name>.har`. A live case may have no recording yet (`trawl smoke --record` writes one
/// when it passes): it runs live, and replays skip it.
public struct RecordedCase: Sendable, Hashable, CustomStringConvertible {
    /// `<site>/<name>`.
    public var name: String
    public var site: String
    public var caseFile: URL
    /// Where the recording is, or will be for a live case without one.
    public var archive: URL
    public var recordingCase: RecordingCase
    /// Whether ``archive`` exists: false only for a live case not recorded yet, which is not a
    /// replay case.
    public var hasRecording: Bool

    public var description: String { name }

    public init(name: String, site: String, caseFile: URL, archive: URL, recordingCase: RecordingCase, hasRecording: Bool = true) {
        self.name = name
        self.site = site
        self.caseFile = caseFile
        self.archive = archive
        self.recordingCase = recordingCase
        self.hasRecording = hasRecording
    }

    /// Every case under `folder` (one level of site folders), sorted by name, live cases without
    /// a recording included (``hasRecording`` false).
    /// - Throws: ``RecordingError`` for a malformed case file or a synthetic case without its `.har`.
    public static func all(in folder: URL) throws -> [RecordedCase] {
        let fm = FileManager.default
        var cases: [RecordedCase] = []
        let sites = (try? fm.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.isDirectoryKey])) ?? []
        for site in sites where (try? site.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
            for file in (try? fm.contentsOfDirectory(at: site, includingPropertiesForKeys: nil)) ?? [] where file.lastPathComponent.hasSuffix(".case.json") {
                let base = String(file.lastPathComponent.dropLast(".case.json".count))
                let archive = site.appendingPathComponent(base + ".har")
                let recordingCase = try RecordingCase.read(from: file)
                let hasRecording = fm.fileExists(atPath: archive.path)
                guard hasRecording || !recordingCase.synthetic else {
                    throw RecordingError(.invalidCase, file: file.path, "no recording \(archive.lastPathComponent) beside it (a synthetic case only replays)")
                }
                cases.append(
                    RecordedCase(
                        name: "\(site.lastPathComponent)/\(base)", site: site.lastPathComponent, caseFile: file, archive: archive,
                        recordingCase: recordingCase, hasRecording: hasRecording))
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
