public import Foundation
import Glibc

/// Runs a built executable to completion and keeps what it printed: for tests of the `trawl`
/// command as a user (or a script) meets it. Output goes through files, so a chatty child can
/// never block on a full pipe.
public struct CommandRun: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    /// The lines of standard output.
    public var lines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// The executable `name` built beside the running test bundle.
    public static func builtExecutable(_ name: String) -> URL? {
        let places = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.bundleURL,
        ]
        return places.map { $0.appendingPathComponent(name) }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// `environment` with `XDG_DATA_HOME` in a scratch folder of this test process (unless it
    /// names one): a `trawl` a test starts records into a throwaway local index, never the
    /// user's own.
    public static func isolatedEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        var environment = environment
        if environment["XDG_DATA_HOME"] == nil {
            environment["XDG_DATA_HOME"] =
                FileManager.default.temporaryDirectory
                .appendingPathComponent("trawl-test-data-\(ProcessInfo.processInfo.processIdentifier)").path
        }
        return environment
    }

    /// Runs `executable` with `arguments`, standard input from `input` (empty when `nil`), and
    /// waits for it to exit — up to `timeLimit`: a command still running then is killed
    /// (`SIGKILL`) and ``CommandTimedOut`` thrown with what it printed, so a command that hangs
    /// fails its test instead of holding the test run (this wait blocks a thread, where no
    /// test time limit's cancellation reaches).
    public static func run(
        _ executable: URL, _ arguments: [String], input: String? = nil, environment: [String: String]? = nil,
        in folder: URL? = nil, timeLimit: Duration = .seconds(180)
    ) throws -> CommandRun {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("out")
        let errURL = scratch.appendingPathComponent("err")
        let inURL = scratch.appendingPathComponent("in")
        for url in [outURL, errURL, inURL] { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
        try Data((input ?? "").utf8).write(to: inURL)

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = Self.isolatedEnvironment(environment ?? ProcessInfo.processInfo.environment)
        if let folder { process.currentDirectoryURL = folder }
        let stdout = try FileHandle(forWritingTo: outURL)
        let stderr = try FileHandle(forWritingTo: errURL)
        let stdin = try FileHandle(forReadingFrom: inURL)
        defer { try? stdout.close(); try? stderr.close(); try? stdin.close() }
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let seconds = Double(timeLimit.components.seconds) + Double(timeLimit.components.attoseconds) / 1e18
        if exited.wait(timeout: .now() + seconds) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw CommandTimedOut(
                command: ([executable.lastPathComponent] + arguments).joined(separator: " "), limit: timeLimit,
                stdout: String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self),
                stderr: String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self))
        }
        process.waitUntilExit()
        return CommandRun(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}

/// A command run by ``CommandRun/run(_:_:input:environment:in:timeLimit:)`` outlived its time
/// limit and was killed.
public struct CommandTimedOut: Error, CustomStringConvertible, Sendable {
    public var command: String
    public var limit: Duration
    public var stdout: String
    public var stderr: String
    public var description: String {
        "`\(command)` did not end within \(limit) and was killed; its output: \(stdout.suffix(2000)) — its errors: \(stderr.suffix(2000))"
    }
}
