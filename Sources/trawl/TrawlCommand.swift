import ArgumentParser
import Foundation

/// `trawl`: turns web pages into the GIFs they carry.
struct TrawlCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trawl",
        abstract: "Turn web pages into the GIFs they carry.",
        discussion: """
            Exit codes: 0 media found for every input, 1 some input had no media,
            2 usage error, 3 a fetch or parse failed.
            """,
        subcommands: [ResolveCommand.self, BatchCommand.self, RecordCommand.self, SmokeCommand.self, DemoCommand.self])
}

/// Entry point: maps ArgumentParser's usage errors to exit code 2, as documented.
@main
enum TrawlMain {
    static func main() async {
        do {
            var command = try TrawlCommand.parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch {
            let code = TrawlCommand.exitCode(for: error)
            let message = TrawlCommand.fullMessage(for: error)
            if code == .success {
                print(message)
                Foundation.exit(0)
            }
            FileHandle.standardError.write(Data((message + "\n").utf8))
            Foundation.exit(ExitStatus.usage.rawValue)
        }
    }
}

/// The documented exit codes.
enum ExitStatus: Int32 {
    case found = 0, nothingFound = 1, usage = 2, failure = 3
}
