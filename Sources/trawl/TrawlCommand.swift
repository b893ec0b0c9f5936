import ArgumentParser
import Foundation
import TrawlCore

/// `trawl`: turns web pages into the GIFs they carry.
struct TrawlCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trawl",
        abstract: "Turn web pages into the GIFs they carry.",
        discussion: ExitStatus.documentation,
        version: "trawl \(TrawlVersion.string)",
        subcommands: [
            ResolveCommand.self, BatchCommand.self, RecordCommand.self, SmokeCommand.self, DemoCommand.self,
            WorkerCommand.self, QueueCommand.self, IndexCommand.self, ServeCommand.self,
        ])
}

/// Entry point: usage errors exit 2, runtime failures 3, each with one sentence on standard
/// error naming what failed.
@main
enum TrawlMain {
    static func main() async {
        var command: any ParsableCommand
        do {
            command = try TrawlCommand.parseAsRoot()
        } catch {
            // Help, --version, and usage errors: ArgumentParser knows which is which.
            let code = TrawlCommand.exitCode(for: error)
            let message = TrawlCommand.fullMessage(for: error)
            if code == .success {
                let help = defaultSubcommandHelp(for: Array(CommandLine.arguments.dropFirst())) ?? message
                FileHandle.standardOutput.write(Data((help + "\n").utf8))
                exit(0)
            }
            Diagnostics.write(message)
            exit(ExitStatus.usage.rawValue)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let exitCode as ExitCode {
            exit(exitCode.rawValue)
        } catch let usage as ValidationError {
            Diagnostics.write("trawl: \(usage.message)")
            exit(ExitStatus.usage.rawValue)
        } catch {
            // A command group's default `run()` asks for its help (CleanExit): asked for
            // (`trawl batch --help`), it is the answer; but `trawl` or `trawl index` alone names
            // nothing to do, a usage error (the help on standard error).
            if TrawlCommand.exitCode(for: error) == .success {
                let arguments = Array(CommandLine.arguments.dropFirst())
                let message = TrawlCommand.fullMessage(for: error)
                if arguments.contains(where: { ["--help", "-h", "help"].contains($0) }) {
                    let help = defaultSubcommandHelp(for: arguments) ?? message
                    FileHandle.standardOutput.write(Data((help + "\n").utf8))
                    exit(0)
                }
                if !message.isEmpty { Diagnostics.write(message) }
                exit(ExitStatus.usage.rawValue)
            }
            Diagnostics.write("trawl: " + ErrorSentence.describe(error))
            exit(ExitStatus.failure.rawValue)
        }
    }
}

extension TrawlMain {
    /// The help of a command group whose default subcommand does its work (`trawl batch
    /// --help`): that subcommand's help, whose options are what `trawl batch FILE` takes, then
    /// the group's other subcommands. `nil` for any other help request.
    static func defaultSubcommandHelp(for arguments: [String]) -> String? {
        var words = arguments.filter { $0 != "--help" && $0 != "-h" }
        if words.first == "help" { words.removeFirst() } else if words.count == arguments.count { return nil }
        guard words.count == 1,
            let group = TrawlCommand.configuration.subcommands.first(where: { $0.configuration.commandName == words[0] }),
            let main = group.configuration.defaultSubcommand
        else { return nil }
        var help = TrawlCommand.helpMessage(for: main)
        let others = group.configuration.subcommands.filter { ObjectIdentifier($0) != ObjectIdentifier(main) }
        guard !others.isEmpty else { return help }
        while help.hasSuffix("\n") { help.removeLast() }
        let width = max(22, (others.map { $0.configuration.commandName?.count ?? 0 }.max() ?? 0) + 2)
        help += "\n\nOTHER SUBCOMMANDS OF 'trawl \(words[0])':\n"
        for other in others {
            let name = other.configuration.commandName ?? ""
            help += "  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + other.configuration.abstract + "\n"
        }
        help += "\n  See 'trawl help \(words[0]) <subcommand>' for detailed help."
        return help
    }
}

/// The documented exit codes, the same in every command.
enum ExitStatus: Int32 {
    /// Everything asked for was done (media found for every input, every URL done, every case passed).
    case found = 0
    /// The command ran, but some input gave nothing: no media, a failed URL, a case not passing.
    case nothingFound = 1
    /// The command line was wrong: an unknown option, a bad value, an input that is not a URL.
    case usage = 2
    /// The command could not do its work: a fetch or parse failed, a file could not be read.
    case failure = 3
    /// Interrupted (Ctrl-C) after stopping cleanly.
    case interrupted = 130

    static let documentation = """
        Exit codes, in every command: 0 everything asked for was done; 1 the command ran but some input gave nothing (no media, a failed URL, a smoke case not passing); 2 usage error (the message names the option or input, or the input file that is not there); 3 a runtime failure (a fetch, a parse, a file that is there but cannot be read; the message names it); 130 interrupted with Ctrl-C after stopping cleanly.
        """
}

/// Writes a line to standard error, through ``Redaction/text(_:extraParameters:)``: every
/// message the command prints (an input in front of an error, a usage error quoting it, a
/// server's log line) shows no key or token a URL in it carries.
enum Diagnostics {
    static func write(_ line: String) {
        let redacted = Redaction.text(line)
        FileHandle.standardError.write(Data((redacted.hasSuffix("\n") ? redacted : redacted + "\n").utf8))
    }
}
