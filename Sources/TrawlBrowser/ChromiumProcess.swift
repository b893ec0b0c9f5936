import CSpawn
import Foundation
import Glibc
import Synchronization

/// One running Chromium headless shell and the two pipe ends Trawl keeps: the only owner of the
/// child process.
///
/// The browser reads commands on its descriptor 3 and writes replies and events on its 4. Trawl
/// holds the only write end of the command pipe (close-on-exec, so no other child inherits it):
/// when Trawl exits for any reason — even `kill -9` — that end closes and the browser, reading
/// end-of-file, exits on its own in about 50 ms. ``terminate()`` (and `deinit`) do not wait for
/// that: they kill the browser's whole process group with `SIGKILL`, reap it, and remove the
/// temporary profile.
///
/// The command pipe's descriptor is written and closed under one lock (``writeCommand(_:)``):
/// once it is closed its number is free for the next socket or pipe this process opens (a
/// database connection, a server's client), and a command written to that number would go to
/// whoever got it.
final class ChromiumProcess: Sendable {
    /// The browser's pid (also its process group: it was spawned as a group leader).
    let pid: pid_t
    /// Trawl's end of the command pipe (the browser's descriptor 3); -1 once closed.
    private let commandFD: Mutex<Int32>
    /// Trawl's end of the event pipe (the browser's descriptor 4). The connection's reader thread
    /// closes it at end of file, so no other thread ever reads a reused descriptor number.
    let eventFD: Int32
    let profileDirectory: String
    /// Set (under the lock) once the browser is killed and reaped: from then on its pid and group
    /// id may name other processes, and nothing here signals them again.
    private let terminated = Mutex(false)

    /// Starts the browser. Throws ``BrowserError/Code/launchFailed`` when the binary is missing or
    /// cannot run.
    init(configuration: BrowserConfiguration) throws {
        Self.ignoreBrokenPipes
        guard FileManager.default.isExecutableFile(atPath: configuration.executablePath) else {
            throw BrowserError.launchFailed(
                "no Chromium headless shell at \(configuration.executablePath); run `make deps` "
                    + "(apt-get install -y --no-install-recommends chromium-headless-shell)")
        }
        Self.removeAbandonedProfiles()
        let profile = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(Self.profilePrefix)\(getpid())-\(UUID().uuidString)").path
        do {
            try FileManager.default.createDirectory(atPath: profile, withIntermediateDirectories: true)
        } catch {
            throw BrowserError.launchFailed("cannot create the browser profile directory: \(error)")
        }
        let arguments: [String]
        do {
            arguments = try configuration.arguments(profileDirectory: profile)
        } catch {
            try? FileManager.default.removeItem(atPath: profile)
            throw error
        }

        var commands: [Int32] = [-1, -1]
        var events: [Int32] = [-1, -1]
        guard trawl_pipe_cloexec(&commands) == 0 else {
            try? FileManager.default.removeItem(atPath: profile)
            throw BrowserError.launchFailed("pipe: \(String(cString: strerror(errno)))")
        }
        guard trawl_pipe_cloexec(&events) == 0 else {
            close(commands[0]); close(commands[1])
            try? FileManager.default.removeItem(atPath: profile)
            throw BrowserError.launchFailed("pipe: \(String(cString: strerror(errno)))")
        }
        var stderrFD: Int32 = -1
        if let path = configuration.stderrPath {
            stderrFD = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        }
        // The environment is passed through as it is (HOME, fonts, locale): the browser needs it.
        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        var childPID: pid_t = 0
        let argv = [configuration.executablePath] + arguments
        let result = Self.withCStrings(argv) { argvPointer in
            Self.withCStrings(environment) { envPointer in
                trawl_spawn_with_pipe(configuration.executablePath, argvPointer, envPointer, commands[0], events[1], stderrFD, &childPID)
            }
        }
        // The child's ends live on in the child only.
        close(commands[0])
        close(events[1])
        if stderrFD >= 0 { close(stderrFD) }
        guard result == 0 else {
            close(commands[1]); close(events[0])
            try? FileManager.default.removeItem(atPath: profile)
            throw BrowserError.launchFailed("posix_spawn \(configuration.executablePath): \(String(cString: strerror(result)))")
        }
        pid = childPID
        commandFD = Mutex(commands[1])
        eventFD = events[0]
        profileDirectory = profile
    }

    /// The command pipe's descriptor number, -1 once closed (for tests: after ``terminate()``
    /// nothing may be written to that number, which the next socket or pipe may get).
    var commandDescriptor: Int32 { commandFD.withLock { $0 } }

    /// Writes all of `bytes` to the browser's command pipe; `false` when the browser is gone
    /// (`EPIPE`) or terminated (the descriptor is closed: nothing is written to its number).
    func writeCommand(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // Held for the whole write: ``terminate()`` kills the browser first, so a write blocked
        // on a full pipe fails with EPIPE and lets go, and only then is the descriptor closed.
        commandFD.withLock { fd in
            guard fd >= 0 else { return false }
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += n
            }
            return true
        }
    }

    /// Kills the browser and everything it started, reaps it and removes its profile. Safe to call
    /// more than once, from any thread.
    func terminate() {
        let first = terminated.withLock { terminated -> Bool in
            guard !terminated else { return false }
            terminated = true
            kill(-pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            return true
        }
        guard first else { return }
        commandFD.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
        try? FileManager.default.removeItem(atPath: profileDirectory)
    }

    deinit { terminate() }

    /// Profiles are named `trawl-browser-OWNERPID-UUID`.
    static let profilePrefix = "trawl-browser-"

    /// Removes the profiles of owners that died without cleaning up (`kill -9`): their browsers
    /// exited with them, only the directory is left.
    private static func removeAbandonedProfiles() {
        let temporary = FileManager.default.temporaryDirectory
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: temporary.path) else { return }
        for name in names where name.hasPrefix(profilePrefix) {
            let owner = name.dropFirst(profilePrefix.count).prefix { $0 != "-" }
            guard let pid = pid_t(owner), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
    }

    /// Writing to a pipe whose reader died raises `SIGPIPE`, whose default action ends the whole
    /// process; ignored, the write fails with `EPIPE` and the connection reports a dead browser.
    /// (Children get default actions back: the spawn resets every signal.)
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
