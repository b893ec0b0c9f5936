import Foundation
import Synchronization
import TrawlTesting

#if canImport(Glibc)
import Glibc
#endif

/// A benchmark's child process run to its end while the harness watches it: the peak PSS of its
/// whole process tree (the child, a browser it starts, a driver between them), when a given text
/// first appeared on its standard output, and when its result lines arrived (on standard output,
/// or in a file it appends to).
struct WatchedRun: Sendable {
    var status: Int32
    var seconds: Double
    /// The largest sum of `Pss:` over the tree seen in the samples (every 100 ms), in KiB.
    var peakPSS: Int
    /// Seconds from spawn to the first standard-output line containing the `mark`.
    var firstMark: Double?
    /// Seconds from spawn to the first and the last result line seen.
    var firstLine: Double?
    var lastLine: Double?
    var lines: Int
    var stdout: String

    /// Result lines per second between the first and the last one: the rate with the tool's own
    /// start left out.
    var steadyRate: Double? {
        guard let first = firstLine, let last = lastLine, lines > 1, last > first else { return nil }
        return Double(lines - 1) / (last - first)
    }

    /// Runs `arguments` to its end.
    /// - Parameters:
    ///   - mark: text whose first appearance on standard output is timed.
    ///   - lineMarker: standard-output lines containing this are the result lines (`nil`: none).
    ///   - linesFile: a file the child appends its result lines to, polled every 10 ms instead.
    ///   - environment: variables added to this process's own.
    ///   - stderrPath: where the child's standard error goes.
    static func run(
        _ arguments: [String], mark: String? = nil, lineMarker: String? = nil, linesFile: String? = nil,
        environment: [String: String] = [:], stderrPath: String = "/dev/null"
    ) throws -> WatchedRun {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw BenchmarkError("pipe: \(String(cString: strerror(errno)))") }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_addclose(&actions, readEnd)
        posix_spawn_file_actions_addclose(&actions, writeEnd)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { $1 }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }

        let clock = ContinuousClock()
        let started = clock.now
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
        close(writeEnd)
        guard spawned == 0 else {
            close(readEnd)
            throw BenchmarkError("cannot start \(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        let watch = Watch()
        let childPID = pid
        let since: @Sendable () -> Double = {
            let elapsed = clock.now - started
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }

        let reader = Thread {
            var pending = Data()
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = read(readEnd, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                pending.append(contentsOf: buffer[0..<count])
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    watch.stdoutLine(line, at: since(), mark: mark, lineMarker: lineMarker)
                }
            }
            close(readEnd)
            watch.readerDone.signal()
        }
        reader.start()
        let sampler = Thread {
            var tick = 0
            var seenLines = 0
            while !watch.isFinished {
                if let linesFile {
                    let count = Self.lineCount(linesFile)
                    if count > seenLines {
                        watch.fileLines(count, at: since())
                        seenLines = count
                    }
                }
                if tick % 10 == 0 { watch.pss(Self.treePSS(root: childPID)) }
                tick += 1
                usleep(10_000)
            }
            watch.samplerDone.signal()
        }
        sampler.start()

        var status: Int32 = 0
        while waitpid(childPID, &status, 0) < 0 && errno == EINTR {}
        let elapsed = since()
        watch.finish()
        watch.samplerDone.wait()
        watch.readerDone.wait()
        if let linesFile { watch.fileLines(Self.lineCount(linesFile), at: elapsed) }
        return watch.result(status: (status >> 8) & 0xff, seconds: elapsed)
    }

    /// The sum of `Pss:` in `smaps_rollup` over `root` and its descendants, in KiB.
    static func treePSS(root: Int32) -> Int {
        var total = 0
        for pid in [root] + ProcessTree.descendants(of: root) {
            guard let rollup = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else { continue }
            for line in rollup.split(separator: "\n") where line.hasPrefix("Pss:") {
                total += Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
            }
        }
        return total
    }

    private static func lineCount(_ path: String) -> Int {
        guard let data = FileManager.default.contents(atPath: path) else { return 0 }
        return data.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }
}

/// What the watching threads saw, behind one lock.
private final class Watch: Sendable {
    struct State {
        var finished = false
        var peakPSS = 0
        var firstMark: Double?
        var firstLine: Double?
        var lastLine: Double?
        var lines = 0
        var stdout = ""
    }

    private let state = Mutex(State())
    let readerDone = DispatchSemaphore(value: 0)
    let samplerDone = DispatchSemaphore(value: 0)

    var isFinished: Bool { state.withLock { $0.finished } }
    func finish() { state.withLock { $0.finished = true } }
    func pss(_ kib: Int) { state.withLock { $0.peakPSS = max($0.peakPSS, kib) } }

    func stdoutLine(_ line: String, at time: Double, mark: String?, lineMarker: String?) {
        state.withLock { state in
            state.stdout += line + "\n"
            if let mark, state.firstMark == nil, line.contains(mark) { state.firstMark = time }
            if let lineMarker, line.contains(lineMarker) {
                state.firstLine = state.firstLine ?? time
                state.lastLine = time
                state.lines += 1
            }
        }
    }

    func fileLines(_ count: Int, at time: Double) {
        state.withLock { state in
            guard count > state.lines else { return }
            state.firstLine = state.firstLine ?? time
            state.lastLine = time
            state.lines = count
        }
    }

    func result(status: Int32, seconds: Double) -> WatchedRun {
        state.withLock { state in
            WatchedRun(
                status: status, seconds: seconds, peakPSS: state.peakPSS, firstMark: state.firstMark, firstLine: state.firstLine,
                lastLine: state.lastLine, lines: state.lines, stdout: state.stdout)
        }
    }
}
