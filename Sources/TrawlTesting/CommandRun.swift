public import Foundation
import Glibc

/// Runs a built executable to completion and keeps what it printed: for tests of the `trawl`
/// command as a user (or a script) meets it. Output goes through files, so a chatty child can
/// never block on a full pipe, and all of it is there once the child has exited.
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
    /// awaits its exit — up to `timeLimit`: a command still running then is stopped and
    /// ``CommandTimedOut`` thrown with what it printed, so a command that hangs fails its test.
    ///
    /// The wait holds no thread: the exit arrives through the process's termination handler, so
    /// commands run by tests at the same time never take the cooperative pool's threads from the
    /// rest of the suite. A cancelled task (a test past its `.timeLimit`) stops the command
    /// before it throws `CancellationError`. Stopping is `SIGTERM`, then `SIGKILL` if the command
    /// is still there a few seconds later; either way the command has exited when this returns
    /// or throws, and never outlives its test.
    ///
    /// ```swift
    /// let run = try await CommandRun.run(binary, ["resolve", "--json", url])
    /// #expect(run.status == 0, "\(run.stderr)")
    /// ```
    public static func run(
        _ executable: URL, _ arguments: [String], input: String? = nil, environment: [String: String]? = nil,
        in folder: URL? = nil, timeLimit: Duration = .seconds(180)
    ) async throws -> CommandRun {
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
        let command = ([executable.lastPathComponent] + arguments).joined(separator: " ")
        let exited = process.watchExit()
        try await start(process)
        do {
            try await exited.wait(for: "`\(command)` to exit", within: timeLimit)
        } catch {
            // Read before the stop: where each thread of a hung command waits is what its test's
            // failure needs to say (a deadlock in user space, a read that never returns…).
            let threads = error is WaitTimedOut ? Self.threads(of: process.processIdentifier) : ""
            await stop(process.processIdentifier, exited: exited, command: command)
            guard error is WaitTimedOut else { throw error }
            throw CommandTimedOut(
                command: command, limit: timeLimit, threads: threads,
                stdout: String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self),
                stderr: String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self))
        }
        // The output went to files, not pipes: once the command has exited, every byte it wrote
        // is in them (no pipe left to drain after the exit is seen).
        return CommandRun(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// Starts `process` from a thread of its own with no signal blocked. A child starts with the
    /// signal mask of the thread that spawns it, and the cooperative pool's threads block
    /// `SIGTERM` and `SIGINT`: a command started from a task would never hear the `SIGTERM` that
    /// asks it to end.
    private static func start(_ process: Process) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread {
                var none = sigset_t()
                sigemptyset(&none)
                pthread_sigmask(SIG_SETMASK, &none, nil)
                continuation.resume(with: Result { try process.run() })
            }.start()
        }
    }

    /// One line per thread of the running process `pid`, from `/proc`: its name, state, the
    /// kernel function it sleeps in and the system call it is in (the number, `running` if none).
    static func threads(of pid: Int32) -> String {
        let tasks = URL(fileURLWithPath: "/proc/\(pid)/task")
        guard let ids = try? FileManager.default.contentsOfDirectory(atPath: tasks.path) else { return "" }
        func read(_ id: String, _ file: String) -> String {
            let data = (try? Data(contentsOf: tasks.appendingPathComponent(id).appendingPathComponent(file))) ?? Data()
            return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return ids.sorted { (Int($0) ?? 0) < (Int($1) ?? 0) }.map { id in
            // stat: "tid (comm) state …"; the name may hold spaces and parentheses, the state follows the last ")".
            let stat = read(id, "stat")
            let state = stat.lastIndex(of: ")").map { stat[stat.index(after: $0)...].split(separator: " ").first.map(String.init) ?? "?" } ?? "?"
            let syscall = read(id, "syscall").split(separator: " ").first.map(String.init) ?? "?"
            return "\(id) \(read(id, "comm")) \(state) \(read(id, "wchan")) syscall \(syscall)"
        }.joined(separator: "\n")
    }

    /// How long a stopped command has between `SIGTERM` and `SIGKILL`.
    static let stopGrace: Duration = .seconds(5)

    /// Stops the command `pid` unless it has exited (`SIGTERM`, then `SIGKILL` after
    /// ``stopGrace``) and returns once it has.
    private static func stop(_ pid: Int32, exited: Watched<Bool>, command: String) async {
        // A task of its own: the caller's may be cancelled, and the command must be reaped all
        // the same (a cancelled task's waits end at once).
        await Task {
            if exited.value { return }
            kill(pid, SIGTERM)
            if (try? await exited.wait(for: "`\(command)` to exit on SIGTERM", within: stopGrace)) != nil { return }
            kill(pid, SIGKILL)
            _ = try? await exited.wait(for: "`\(command)` to exit on SIGKILL", within: .seconds(60))
        }.value
    }
}

/// A command run by ``CommandRun/run(_:_:input:environment:in:timeLimit:)`` outlived its time
/// limit and was stopped.
public struct CommandTimedOut: Error, CustomStringConvertible, Sendable {
    public var command: String
    public var limit: Duration
    /// Each thread of the command when its time ran out: name, state, where in the kernel it
    /// waited and in which system call (see `/proc/PID/task`).
    public var threads: String
    public var stdout: String
    public var stderr: String
    public var description: String {
        "`\(command)` did not end within \(limit) and was stopped; its output: \(stdout.suffix(2000)) — its errors: \(stderr.suffix(2000))"
            + (threads.isEmpty ? "" : " — its threads (id, name, state, kernel wait, system call):\n" + threads)
    }
}
