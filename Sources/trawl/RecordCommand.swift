import ArgumentParser
import Foundation
import Trawl
import TrawlCore
import TrawlRecordings

/// `trawl record`: makes recordings, live or from a saved response, and the case beside them.
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a live case, or import a saved response as a recording.",
        discussion: """
            trawl record URL --case SITE/NAME
                resolves URL live, writes every payload (secrets scrubbed) to
                Recordings/SITE/NAME.har, and writes NAME.case.json from the results
                unless it exists (--force rewrites it).
            trawl record --import FILE --url ORIGINAL-URL [--content-type T] (--output F.har | --case SITE/NAME)
                makes a one-entry recording serving FILE at ORIGINAL-URL.
            """)

    @Argument(help: "The page URL or query to record live.")
    var input: String?

    @Option(help: "Write the case as Recordings/SITE/NAME.har and .case.json.")
    var `case`: String?

    @Option(name: .customLong("import"), help: "A saved response to turn into a recording.")
    var importFile: String?

    @Option(help: "With --import: the URL the saved response was served from.")
    var url: String?

    @Option(help: "With --import: the response's Content-Type (else guessed from the file).")
    var contentType: String?

    @Option(help: "With --import: the HAR file to write (instead of --case).")
    var output: String?

    @Option(help: "The recordings folder.")
    var recordings: String = "Recordings"

    @Flag(help: "Rewrite an existing .case.json from this run's results.")
    var force = false

    @OptionGroup(title: "Browser")
    var browser: BrowserOptions

    func validate() throws {
        if let importFile {
            if input != nil { throw ValidationError("give either a URL to record live or --import FILE, not both") }
            guard url != nil else { throw ValidationError("--import \(importFile) needs --url ORIGINAL-URL") }
            guard (output == nil) != (`case` == nil) else { throw ValidationError("--import needs exactly one of --output or --case") }
        } else {
            guard input != nil else { throw ValidationError("give a URL to record, or --import FILE --url URL") }
            guard `case` != nil else { throw ValidationError("a live recording needs --case SITE/NAME") }
        }
        if let name = `case`, name.split(separator: "/").count != 2 { throw ValidationError("--case '\(name)' is not SITE/NAME") }
    }

    func run() async throws {
        let folder = URL(fileURLWithPath: recordings)
        if let importFile, let url {
            let har = try HARImporter.har(file: URL(fileURLWithPath: importFile), url: url, contentType: contentType)
            if let output {
                try har.write(to: URL(fileURLWithPath: output))
                print("wrote \(output)")
                return
            }
            let files = RecordedCase.files(named: `case`!, in: folder)
            try har.write(to: files.archive)
            print("wrote \(files.archive.path)")
            try await writeCase(input: url, files: files)
            return
        }
        let files = RecordedCase.files(named: `case`!, in: folder)
        let recorder = HARRecorder()
        // A page rendered in the browser is recorded with the browser's requests, and its case
        // says it needs one.
        var configuration = TrawlConfiguration(recorder: recorder)
        configuration.browser = browser.browser
        configuration.browserConfiguration = browser.configuration
        let provider = SearchProvider(configuration)
        var sets: [ResultSet] = []
        for try await set in provider.results(for: Request(input!)) { sets.append(set) }
        try await recorder.write(to: files.archive, comment: "trawl record \(input!)")
        print("wrote \(files.archive.path) (\(Counted(await recorder.recorded.count, "payload")))")
        try writeCase(input: input!, sets: sets, files: files)
    }

    /// Replays the new recording and writes its case from what came out.
    func writeCase(input: String, files: (caseFile: URL, archive: URL)) async throws {
        let replay = try TrawlConfiguration.Replay(path: files.archive)
        var sets: [ResultSet] = []
        for try await set in SearchProvider(.init(replay: replay)).results(for: Request(input)) { sets.append(set) }
        try writeCase(input: input, sets: sets, files: files)
    }

    func writeCase(input: String, sets: [ResultSet], files: (caseFile: URL, archive: URL)) throws {
        if FileManager.default.fileExists(atPath: files.caseFile.path), !force {
            print("kept \(files.caseFile.path) (--force rewrites it)")
            return
        }
        let media = MediaCollection(sets.flatMap(\.media)).media
        let fields = RecordingCase.Field.allCases.filter { field in field != .page && !media.isEmpty && media.allSatisfy(field.isPresent) }
        let expect = RecordingCase.Expectation(
            status: sets.contains { $0.isDegraded } ? .degraded : .pass, minResults: media.count, maxResults: media.count,
            media: media.prefix(10).map { .exact($0.url) }, fields: fields)
        // The case is committed too: a key in the pasted URL must not be.
        let rendered = media.contains { $0.provenance.origin.isRendered }
        try RecordingCase(input: Scrubber().scrubQuery(in: input), browser: rendered, expect: expect).write(to: files.caseFile)
        print("wrote \(files.caseFile.path): \(Counted(media.count, "result")); check its expectations before committing")
    }
}
