import ArgumentParser
import Foundation
import Trawl
import TrawlCore
import TrawlTesting

/// `trawl demo`: the main job with no network. Serves the sample pages the repository ships
/// (`Recordings/samples`) on 127.0.0.1 and resolves each of them.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Resolve the bundled sample pages from a loopback server (no network needed).")

    @Option(help: "The folder of sample pages and their manifest.json.")
    var samples: String = "Recordings/samples"

    @Flag(help: "One JSON object per media instead of tables.")
    var json = false

    func run() async throws {
        let folder = URL(fileURLWithPath: samples)
        guard let list = try? SamplePage.load(from: folder) else {
            throw ValidationError("no readable sample manifest at \(folder.appendingPathComponent("manifest.json").path); run from the repository's top folder or pass --samples")
        }
        let server = try SamplePage.server(for: list, in: folder)
        defer { server.shutdown() }

        let provider = Trawl.makeProvider()
        let output = OutputWriter(mode: json ? .jsonLines : .table)
        var missing = 0
        for sample in list where sample.isHTML {
            let url = server.url(sample.path).absoluteString
            var found: [Media] = []
            do {
                for try await set in await provider.results(for: Request(url)) {
                    found += set.media
                    output.write(set, input: url)
                }
            } catch {
                FileHandle.standardError.write(Data("trawl: \(url): \(error)\n".utf8))
            }
            output.flush(input: url, next: nil)
            let urls = Set(found.flatMap(\.allURLs))
            let expected = sample.expectedURLs(base: "http://\(server.host):\(server.port)")
            let absent = expected.filter { !urls.contains($0) }
            missing += absent.count
            if !json {
                print(absent.isEmpty ? "  ✓ \(sample.expect.count) expected media found\n" : "  ✗ missing: \(absent.joined(separator: ", "))\n")
            }
        }
        throw ExitCode(missing == 0 ? 0 : 1)
    }
}
