public import Foundation
import Glibc
import Synchronization

/// A throwaway PostgreSQL cluster for tests and benchmarks: `initdb` in a temporary folder,
/// the server on a reserved 127.0.0.1 port, a fresh database per test.
///
/// The port is told to the server before it binds, so it cannot be the kernel's pick of a
/// free port (bind to port 0, read the number, close): between that close and the server's
/// bind, the number is free for any socket the kernel gives an ephemeral port to (another
/// test's server, a client's connection). The port comes instead from outside the kernel's
/// ephemeral range (`/proc/sys/net/ipv4/ip_local_port_range`), where nothing the tests open
/// is ever given a port, and is reserved by an exclusive `flock` on a file named after it,
/// held until ``stop()`` or the end of the process (the kernel drops the lock however the
/// process ends): two clusters, in one process or in two, never pick the same port.
///
/// The server refuses to run as root, so as root the folder is given to the `postgres` user
/// and `initdb`/`pg_ctl` run through `runuser -u postgres`. A watchdog (a shell reading a pipe
/// whose other end only this process holds) stops the server with `-m immediate` and removes
/// the folder when this process exits, however it exits: a crashed or killed test run leaves
/// no cluster behind. Folders of dead runs whose watchdog was killed too are swept at start.
///
/// ```swift
/// let cluster = try await PostgresCluster.shared()
/// let url = try await cluster.createDatabase()   // postgres://postgres@127.0.0.1:PORT/t_…
/// ```
///
/// Every program it runs (`initdb`, `pg_ctl`, `psql`) is waited for; the `async` forms wait on
/// a thread of their own (``offPool(_:_:)``), so a test starting a cluster or crashing one
/// holds no thread of the cooperative pool for the seconds that takes. Tests use those; the
/// blocking forms are for benchmarks (a process of their own) and `defer`.
///
/// ```swift
/// let own = try await PostgresCluster.started(durable: true)
/// defer { own.stop() }
/// ```
public final class PostgresCluster: Sendable {
    public let port: Int
    /// The cluster's folder (data in `data/`, the socket beside it).
    public let folder: URL
    /// With `tls`: the server's self-signed certificate (PEM), which is also its own root:
    /// a client's `sslrootcert`.
    public let certificate: URL?
    public let binaries: URL
    /// The server's options (`pg_ctl -o`), kept for ``start()``.
    private let options: String
    /// The write end of the watchdog's pipe, open for as long as this process lives (closed by
    /// ``stop()`` or by the kernel at exit: either way the watchdog stops the server), and the
    /// port's reservation (see ``PortReservation``); `nil` once stopped, so a second ``stop()``
    /// closes no descriptor number that has been given to something else since.
    private let held: Mutex<(lifeline: Int32, port: PortReservation)?>

    /// Where `initdb` and `pg_ctl` are (the newest PostgreSQL under /usr/lib/postgresql).
    public static func findBinaries() -> URL? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        for version in versions.reversed() {
            let bin = URL(fileURLWithPath: "\(root)/\(version)/bin")
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("pg_ctl").path) { return bin }
        }
        return nil
    }

    private static let sharedStart = Mutex<Task<PostgresCluster, any Error>?>(nil)

    /// One cluster for the whole test process, started on first use. Tests asking at once all
    /// await the one start (a failed start fails each of them, without starting again).
    public static func shared() async throws -> PostgresCluster {
        let start = sharedStart.withLock { start in
            if let start { return start }
            let first = Task { try await started(durable: false) }
            start = first
            return first
        }
        return try await start.value
    }

    /// Starts a cluster as ``init(durable:tls:settings:)`` does, on a thread of its own:
    /// `initdb` and `pg_ctl start` take seconds.
    public static func started(durable: Bool = false, tls: Bool = false, settings: [String: String] = [:]) async throws -> PostgresCluster {
        try await offPool("postgres-start") { try PostgresCluster(durable: durable, tls: tls, settings: settings) }
    }

    /// Starts a cluster.
    /// - Parameters:
    ///   - durable: keep PostgreSQL's defaults (`fsync`, synchronous commits), as a
    ///     benchmark should; tests turn them off (a test never pulls the power).
    ///   - tls: serve TLS only (`ssl=on`, a certificate for `localhost` and 127.0.0.1 made by
    ///     `openssl` now; connections without TLS are rejected by `pg_hba.conf`).
    ///   - settings: more server settings (`-c name=value`), e.g. a benchmark's
    ///     `shared_preload_libraries=pg_stat_statements`.
    public init(durable: Bool = false, tls: Bool = false, settings: [String: String] = [:]) throws {
        guard let binaries = Self.findBinaries() else {
            throw ClusterError("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/pg_ctl): run `make deps`")
        }
        self.binaries = binaries
        Self.sweepLeftovers()
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("trawl-pg-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.folder = folder
        try Data("\(getpid())\n".utf8).write(to: folder.appendingPathComponent("owner.pid"))
        if tls {
            certificate = try Self.makeSelfSignedCertificate(in: folder, name: "server").certificate
        } else {
            certificate = nil
        }
        let asRoot = geteuid() == 0
        if asRoot {
            // The server runs as postgres: the folder (and the temporary folder's path to it) must be its.
            try Self.run("/bin/chown", ["-R", "postgres:postgres", folder.path])
            try Self.run("/bin/chmod", ["0755", folder.path])
        }
        let data = folder.appendingPathComponent("data").path
        try Self.run(
            binaries.appendingPathComponent("initdb").path, ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"], asPostgres: asRoot)
        if tls {
            // TCP only with TLS: a client that does not ask for it is turned away.
            let rules = "local all all trust\nhostssl all all 127.0.0.1/32 trust\nhostnossl all all 127.0.0.1/32 reject\n"
            try Data(rules.utf8).write(to: URL(fileURLWithPath: data).appendingPathComponent("pg_hba.conf"))
        }

        // The watchdog first, so a failed start is cleaned up as well. Both ends of its pipe
        // are close-on-exec: only the watchdog gets the read end (as its standard input), and
        // no child inherits the write end, which this process alone holds until it exits.
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw ClusterError("pipe() failed: errno \(errno)") }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        let stop = (asRoot ? "runuser -u postgres -- " : "") + "'\(binaries.path)/pg_ctl' -D '\(data)' -m immediate stop"
        // In a session of its own (a Ctrl-C to the test run's process group does not skip the
        // clean-up), and forked off (`-f`, its parent reaped here): not a child of this process,
        // whose tests count their children.
        do {
            try Self.spawn(
                ["/usr/bin/setsid", "-f", "/bin/sh", "-c", "read _ignored; \(stop) >/dev/null 2>&1; rm -rf '\(folder.path)'"], input: ends[0], wait: true)
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        close(ends[0])

        var lastError: (any Error)?
        for _ in 0..<5 {
            let reservation: PortReservation
            do {
                reservation = try PortReservation()
            } catch {
                close(ends[1])
                throw error
            }
            let candidate = reservation.port
            var options = "-p \(candidate) -k \(folder.path) -c listen_addresses=127.0.0.1 -c max_connections=300"
            if !durable { options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off" }
            for (name, value) in settings.sorted(by: { $0.key < $1.key }) { options += " -c \(name)=\(value)" }
            if tls { options += " -c ssl=on -c ssl_cert_file=\(folder.path)/server.crt -c ssl_key_file=\(folder.path)/server.key" }
            do {
                try Self.run(
                    binaries.appendingPathComponent("pg_ctl").path,
                    ["-D", data, "-o", options, "-l", folder.appendingPathComponent("server.log").path, "-w", "-t", "60", "start"],
                    asPostgres: asRoot)
                port = candidate
                held = Mutex((ends[1], reservation))
                self.options = options
                return
            } catch {
                reservation.release()
                lastError = error  // another program listens on that port: another one
            }
        }
        close(ends[1])
        throw lastError ?? ClusterError("the PostgreSQL server did not start")
    }

    /// A self-signed certificate for `localhost` and 127.0.0.1 and its key, made by `openssl`
    /// in `folder` as `NAME.crt` and `NAME.key` (the key readable by its owner only).
    public static func makeSelfSignedCertificate(in folder: URL, name: String) throws -> (certificate: URL, key: URL) {
        let certificate = folder.appendingPathComponent("\(name).crt")
        let key = folder.appendingPathComponent("\(name).key")
        guard let openssl = ["/usr/bin/openssl", "/bin/openssl"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw ClusterError("openssl is not installed: run `make deps`")
        }
        try run(
            openssl,
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key.path, "-out", certificate.path,
            ])
        try run("/bin/chmod", ["0600", key.path])
        return (certificate, key)
    }

    /// `postgres://postgres@127.0.0.1:PORT/NAME` for a database made now.
    public func createDatabase(_ name: String = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()) throws -> String {
        try psql("CREATE DATABASE \"\(name)\"")
        return url(database: name)
    }

    /// ``createDatabase(_:)``, waited for on a thread of its own.
    public func createDatabase(_ name: String = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()) async throws -> String
    {
        try await offPool("psql") { try self.createDatabase(name) }
    }

    public func url(database: String) -> String { "postgres://postgres@127.0.0.1:\(port)/\(database)" }

    /// Runs SQL through `psql` (as the cluster's superuser) and returns what it printed (unaligned, tuples only).
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        try Self.run(
            binaries.appendingPathComponent("psql").path,
            [
                "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", database, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql,
            ])
    }

    /// ``psql(_:database:)``, waited for on a thread of its own.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") async throws -> String {
        try await offPool("psql") { try self.psql(sql, database: database) }
    }

    /// Stops the server now, frees its port and removes its folder (this happens at exit
    /// anyway). Calling it again does nothing.
    public func stop() {
        guard
            let (lifeline, reservation) = held.withLock({ held in
                defer { held = nil }; return held
            })
        else { return }
        _ = try? Self.run(
            binaries.appendingPathComponent("pg_ctl").path, ["-D", folder.appendingPathComponent("data").path, "-m", "immediate", "stop"],
            asPostgres: geteuid() == 0)
        reservation.release()  // after the stop: the server no longer listens there
        close(lifeline)  // the watchdog removes the folder
    }

    /// Crashes the server: `pg_ctl stop -m immediate`, every backend killed without a
    /// checkpoint (the next ``start()`` recovers from the WAL). Clients see their connections
    /// cut and new ones refused until then.
    public func crash() throws {
        try Self.run(
            binaries.appendingPathComponent("pg_ctl").path, ["-D", folder.appendingPathComponent("data").path, "-m", "immediate", "stop"],
            asPostgres: geteuid() == 0)
    }

    /// ``crash()``, waited for on a thread of its own.
    public func crash() async throws {
        try await offPool("pg_ctl-stop") { try self.crash() }
    }

    /// ``start()``, waited for on a thread of its own.
    public func start() async throws {
        try await offPool("pg_ctl-start") { try self.start() }
    }

    /// Starts the server again on the same port and folder, with the same settings (after
    /// ``crash()``); returns once it accepts connections.
    public func start() throws {
        try Self.run(
            binaries.appendingPathComponent("pg_ctl").path,
            [
                "-D", folder.appendingPathComponent("data").path, "-o", options, "-l", folder.appendingPathComponent("server.log").path, "-w", "-t", "60",
                "start",
            ],
            asPostgres: geteuid() == 0)
    }

    /// Cuts the connections of the clients that named themselves `application` (libpq's and
    /// the queue URL's `application_name`) with `pg_terminate_backend`; returns how many.
    @discardableResult
    public func terminateConnections(application: String) throws -> Int {
        let escaped = application.replacingOccurrences(of: "'", with: "''")
        let count = try psql("SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '\(escaped)'")
        return Int(count.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// ``terminateConnections(application:)``, waited for on a thread of its own.
    @discardableResult
    public func terminateConnections(application: String) async throws -> Int {
        try await offPool("psql") { try self.terminateConnections(application: application) }
    }

    /// Clusters of test runs that died with their watchdog: stopped and removed.
    private static func sweepLeftovers() {
        let files = FileManager.default
        let temporary = URL(fileURLWithPath: NSTemporaryDirectory())
        // A test run has a temporary folder of its own (Tests/run.sh): the clusters of runs
        // that died are in their folders beside this run's.
        var places = [temporary]
        if temporary.lastPathComponent.hasPrefix("trawl-test-run.") {
            let parent = temporary.deletingLastPathComponent()
            places = ((try? files.contentsOfDirectory(atPath: parent.path)) ?? []).filter { $0.hasPrefix("trawl-test-run.") }.map {
                parent.appendingPathComponent($0)
            }
        }
        let clusters = places.flatMap { place in
            ((try? files.contentsOfDirectory(atPath: place.path)) ?? []).filter { $0.hasPrefix("trawl-pg-") }.map { place.appendingPathComponent($0) }
        }
        for folder in clusters {
            guard let text = try? String(contentsOf: folder.appendingPathComponent("owner.pid"), encoding: .utf8),
                let owner = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), kill(owner, 0) != 0, errno == ESRCH
            else { continue }
            if let bin = findBinaries() {
                _ = try? run(
                    bin.appendingPathComponent("pg_ctl").path, ["-D", folder.appendingPathComponent("data").path, "-m", "immediate", "stop"],
                    asPostgres: geteuid() == 0)
            }
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Runs a program to its end; throws with what it printed when it fails.
    ///
    /// posix_spawn and waitpid, not Foundation's `Process`: `pg_ctl start` leaves the server
    /// running with what it inherited, and `Process` would wait for that as well.
    @discardableResult
    private static func run(_ path: String, _ arguments: [String], asPostgres: Bool = false) throws -> String {
        let argv = asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--", path] + arguments : [path] + arguments
        let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("trawl-pg-out-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let status = try spawn(argv, output: scratch.path, wait: true)
        let text = String(decoding: (try? Data(contentsOf: scratch)) ?? Data(), as: UTF8.self)
        guard status == 0 else {
            throw ClusterError("\((path as NSString).lastPathComponent) \(arguments.joined(separator: " ")) failed (\(status)): \(text)")
        }
        return text
    }

    /// This process's open descriptors above 2 that a child would inherit (not close-on-exec).
    private static func inheritableDescriptors() -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.compactMap(Int32.init).filter { $0 > 2 && fcntl($0, F_GETFD) & FD_CLOEXEC == 0 }
    }

    /// How long ``spawn(_:input:output:wait:)`` waits for a program before killing it.
    static let runLimit: Duration = .seconds(180)

    /// Starts `argv`, its standard input from `input` (or /dev/null) and its output to the file
    /// `output` (or /dev/null); with `wait`, waits for it (up to ``runLimit``) and returns its
    /// exit status.
    @discardableResult
    private static func spawn(_ argv: [String], input: Int32? = nil, output: String? = nil, wait: Bool) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input {
            posix_spawn_file_actions_adddup2(&actions, input, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        let target = output ?? "/dev/null"
        posix_spawn_file_actions_addopen(&actions, 1, target, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of this process's: the server (started by `pg_ctl`) and the watchdog live
        // as long as the test run, and a copy of a test's socket held there keeps the port
        // bound and a connection open after the test closed it (its peer never sees the end).
        // Descriptors not close-on-exec are closed in the child (one closed meanwhile is
        // skipped by posix_spawn).
        for fd in Self.inheritableDescriptors() where fd != input {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        guard spawned == 0 else { throw ClusterError("cannot start \(argv[0]): \(String(cString: strerror(spawned)))") }
        guard wait else { return 0 }
        // Never waited for without end: a server that stopped answering would hang the test
        // run in a call no cancellation reaches (`pg_ctl start` gives up after 60 s itself).
        let deadline = ContinuousClock.now + runLimit
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped < 0 {
                guard errno == EINTR else { throw ClusterError("waitpid failed for \(argv[0]): errno \(errno)") }
                continue
            }
            if ContinuousClock.now > deadline {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
                throw ClusterError("\(argv.joined(separator: " ")) did not end within \(runLimit): killed")
            }
            usleep(2_000)
        }
        // WIFEXITED / WEXITSTATUS, spelled out (the C macros do not import).
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}

/// The throwaway cluster could not be set up.
public struct ClusterError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}
