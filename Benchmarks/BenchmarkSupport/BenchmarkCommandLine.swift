import ArgumentParser
import Foundation

/// How every benchmark tool reads its command line, the way `trawl` reads its own: `--help`
/// prints the usage and exits 0; a wrong option or value exits 2 with ArgumentParser's message
/// before anything is measured (a typo never starts a long run with its defaults); an error a
/// benchmark throws is printed with the command's name and exits 2.
public enum BenchmarkCommandLine {
    /// The usage error's exit status, as `trawl`'s.
    static let usage: Int32 = 2

    /// Parses the command line as `Root` and runs the command it names.
    public static func main<Root: ParsableCommand>(_ root: Root.Type) async -> Never {
        var command = parseCommand(root)
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let exitCode as ExitCode {
            exit(exitCode.rawValue)
        } catch {
            // A command group run without a subcommand asks for its help (CleanExit).
            if Root.exitCode(for: error) == .success {
                FileHandle.standardOutput.write(Data((Root.fullMessage(for: error) + "\n").utf8))
                exit(0)
            }
            let root = Root.configuration.commandName ?? ""
            let name = type(of: command).configuration.commandName.map { $0 == root ? root : "\(root) \($0)" } ?? root
            FileHandle.standardError.write(Data("\(name): \(error)\n".utf8))
            exit(usage)
        }
        exit(0)
    }

    /// A command with no subcommands, its options read from the command line; or the process
    /// ends, after the help (exit 0) or a usage error (exit 2).
    public static func parse<Root: ParsableCommand>(_ root: Root.Type) -> Root {
        var command = parseCommand(root)
        if let command = command as? Root { return command }
        // `--help` parses as ArgumentParser's own help command, whose run asks for the help.
        do {
            try command.run()
        } catch {
            if Root.exitCode(for: error) == .success {
                FileHandle.standardOutput.write(Data((Root.fullMessage(for: error) + "\n").utf8))
                exit(0)
            }
            FileHandle.standardError.write(Data((Root.fullMessage(for: error) + "\n").utf8))
            exit(usage)
        }
        exit(0)
    }

    /// The command the command line names, or the process ends: after the help (exit 0) or a
    /// usage error (exit 2).
    static func parseCommand<Root: ParsableCommand>(_ root: Root.Type) -> any ParsableCommand {
        do {
            return try Root.parseAsRoot()
        } catch {
            let message = Root.fullMessage(for: error)
            if Root.exitCode(for: error) == .success {
                FileHandle.standardOutput.write(Data((message + "\n").utf8))
                exit(0)
            }
            FileHandle.standardError.write(Data((message + "\n").utf8))
            exit(usage)
        }
    }
}

/// A comma-separated list as one option value: `--workers 1,4,16`.
public struct CommaList<Element: ExpressibleByArgument>: ExpressibleByArgument {
    public var values: [Element]

    public init(_ values: [Element]) { self.values = values }

    public init?(argument: String) {
        var values: [Element] = []
        for part in argument.split(separator: ",", omittingEmptySubsequences: false) {
            guard let value = Element(argument: String(part)) else { return nil }
            values.append(value)
        }
        guard !values.isEmpty else { return nil }
        self.values = values
    }

    public var defaultValueDescription: String { values.map(\.defaultValueDescription).joined(separator: ",") }
}

extension CommaList: Sendable where Element: Sendable {}
