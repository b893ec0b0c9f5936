import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A real web server for the batch benchmark: nginx from Debian's packages, started on a free
/// loopback port with a configuration of its own (keep-alive, sendfile, one worker per core),
/// serving the corpus as `/p/N/NAME` (N only makes each URL distinct) and a quick 404 for
/// anything else (pages' oEmbed follow-ups). Stopped, and its folder removed, by ``stop()``.
/// A benchmark may add files of its own and `location` blocks that serve them (the browser
/// benchmark's JavaScript pages). A benchmark stopped by SIGINT or SIGTERM stops its servers
/// too (nginx runs until told to stop, so one left behind would keep its port and folder).
final class NginxServer {
    static let binary = "/usr/sbin/nginx"

    /// `1.22.1`, as `nginx -v` says it.
    static var version: String {
        let pipe = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-v"]
        process.standardError = pipe
        guard (try? process.run()) != nil else { return "?" }
        process.waitUntilExit()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return text.split(separator: "/").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "?"
    }
    let port: Int
    private let folder: URL
    private var pid: pid_t = 0

    /// - Parameters:
    ///   - pages: the files to serve, by their names.
    ///   - files: more files for the server's root, by name.
    ///   - locations: nginx `location` blocks served before the catch-all 404.
    init(pages: [URL], files: [String: Data] = [:], locations: String = "") throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw BenchmarkError("nginx is not installed at \(Self.binary): Benchmarks/batch.sh installs it (apt-get install nginx)")
        }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-bench-nginx-\(UUID().uuidString)")
        let root = folder.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for page in pages { try FileManager.default.copyItem(at: page, to: root.appendingPathComponent(page.lastPathComponent)) }
        for (name, body) in files { try body.write(to: root.appendingPathComponent(name)) }
        // nginx workers drop to `nobody`: the copies must be readable by them.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        port = try Self.freePort()
        let user = getuid() == 0 ? "user root;" : ""
        let configuration = """
            \(user)
            worker_processes auto;
            daemon off;
            master_process on;
            pid \(folder.path)/nginx.pid;
            error_log \(folder.path)/error.log error;
            events { worker_connections 1024; }
            http {
                access_log off;
                sendfile on;
                tcp_nopush on;
                keepalive_timeout 65;
                keepalive_requests 100000;
                default_type text/html;
                client_body_temp_path \(folder.path)/body;
                proxy_temp_path \(folder.path)/proxy;
                fastcgi_temp_path \(folder.path)/fastcgi;
                uwsgi_temp_path \(folder.path)/uwsgi;
                scgi_temp_path \(folder.path)/scgi;
                server {
                    listen 127.0.0.1:\(port);
                    root \(root.path);
                    location ~ ^/p/[0-9]+/(?<name>[^/]+)$ { try_files /$name =404; }
                    \(locations)
                    location / { return 404; }
                }
            }
            """
        let conf = folder.appendingPathComponent("nginx.conf")
        try Data(configuration.utf8).write(to: conf)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let arguments = [Self.binary, "-c", conf.path, "-p", folder.path, "-e", folder.appendingPathComponent("error.log").path]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        Self.stopsOnSignals()
        let spawned = posix_spawn(&pid, Self.binary, &actions, nil, argv, environ)
        guard spawned == 0 else { throw BenchmarkError("cannot start nginx: \(String(cString: strerror(spawned)))") }
        Self.running.withLock { $0[pid] = folder }
        try waitUntilListening()
    }

    /// Stops nginx (SIGQUIT lets it close its workers) and removes its folder.
    func stop() {
        guard pid > 0 else { return }
        kill(pid, SIGQUIT)
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(5)
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                break
            }
            usleep(20_000)
        }
        Self.running.withLock { _ = $0.removeValue(forKey: pid) }
        pid = 0
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { stop() }

    /// Servers started and not stopped yet: their master's pid and folder.
    private static let running = Mutex<[pid_t: URL]>([:])
    private static let signalSources = Mutex<[any DispatchSourceSignal]>([])

    /// On the first server: SIGINT and SIGTERM stop every running server (a fast shutdown),
    /// remove their folders and end the benchmark with the usual 128 + signal status.
    private static func stopsOnSignals() {
        signalSources.withLock { sources in
            guard sources.isEmpty else { return }
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    let servers = running.withLock { $0 }
                    for (pid, folder) in servers {
                        kill(pid, SIGTERM)
                        var status: Int32 = 0
                        waitpid(pid, &status, 0)
                        try? FileManager.default.removeItem(at: folder)
                    }
                    FileHandle.standardError.write(Data("trawl-bench: stopped by signal \(number); \(servers.count) nginx stopped\n".utf8))
                    exit(128 + number)
                }
                source.resume()
                sources.append(source)
            }
        }
    }

    private func waitUntilListening() throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(fd)
            if connected == 0 { return }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                pid = 0
                let log = (try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                throw BenchmarkError("nginx exited at start: \(log)")
            }
            usleep(20_000)
        }
        throw BenchmarkError("nginx did not listen on 127.0.0.1:\(port) within 10 s")
    }

    /// A port the kernel says is free on loopback now.
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw BenchmarkError("no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A benchmark could not run: why, for the person who started it.
struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
