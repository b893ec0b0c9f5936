import Foundation
import Glibc
import Testing
import TrawlTesting

/// What the tests stand on: a database server's port that no other socket of the run can be
/// given, a server that holds none of the test process's sockets, and commands that cannot
/// hold the run forever; waits woken by what they wait for.
@Suite("Test support: ports, children, time limits", .timeLimit(.minutes(5)))
struct TestSupportTests {
    /// The kernel's range for ports it picks itself (bind to port 0, a connection's local end).
    static func ephemeralRange() throws -> ClosedRange<Int> {
        let text = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        let numbers = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        try #require(numbers.count == 2)
        return numbers[0]...numbers[1]
    }

    @Test("A reserved port is outside the kernel's ephemeral range and locked until released")
    func reservation() async throws {
        let ephemeral = try Self.ephemeralRange()
        let reservation = try PortReservation()
        let port = reservation.port
        #expect(!ephemeral.contains(port), "\(port) is in \(ephemeral)")
        let lockFile = "/tmp/trawl-ports/\(port).lock"
        let other = open(lockFile, O_RDONLY | O_CLOEXEC)
        try #require(other >= 0)
        defer { close(other) }
        #expect(flock(other, LOCK_EX | LOCK_NB) != 0, "another reserver could take \(port)")
        #expect(try PortReservation().port != port)
        reservation.release()
        // A lock belongs to the open file, which a child being started by another test holds
        // too until it execs (the descriptor is close-on-exec): free within moments, not at once.
        try await waitUntil("the released port to be free to reserve", within: .seconds(30)) { flock(other, LOCK_EX | LOCK_NB) == 0 }
    }

    @Test("The cluster's port is reserved, and its server holds none of this process's descriptors", .tags(.postgres))
    func clusterHoldsNothingOfOurs() async throws {
        #expect(!(try Self.ephemeralRange()).contains(try await PostgresCluster.shared().port))
        // A socket that is not close-on-exec, open while the server starts.
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socketDescriptor >= 0)
        defer { close(socketDescriptor) }
        let ours = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(socketDescriptor)")
        let cluster = try await PostgresCluster.started()
        defer { cluster.stop() }
        #expect(!(try Self.ephemeralRange()).contains(cluster.port))
        let pidFile = try String(contentsOf: cluster.folder.appendingPathComponent("data/postmaster.pid"), encoding: .utf8)
        let server = try #require(pidFile.split(separator: "\n").first.flatMap { Int32($0) })
        let held = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(server)/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(server)/fd/\($0)")
        }
        #expect(!held.isEmpty, "the server's descriptors are readable")
        #expect(!held.contains(ours), "the server holds this process's \(ours)")
    }

    @Test("A command that outlives its time limit is stopped and fails with what it printed and where its threads waited", .tags(.process))
    func commandTimeLimit() async throws {
        do {
            let run = try await CommandRun.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "echo begun; exec sleep 600"], timeLimit: .seconds(1))
            Issue.record("the command ended on its own: \(run.status)")
        } catch let error as CommandTimedOut {
            #expect(error.stdout == "begun\n")
            // Where it waited, read before it was stopped: its one thread, named, asleep in the kernel.
            #expect(error.threads.split(separator: "\n").count == 1, "\(error.threads)")
            #expect(error.threads.contains(" sleep S "), "\(error.threads)")
            #expect(error.description.contains(error.threads))
        }
    }

    @Test("A command past its time limit is asked to end (SIGTERM) before it is killed", .tags(.process))
    func commandTimeLimitTerminatesFirst() async throws {
        let script = "trap 'echo asked to end; exit 3' TERM; echo begun; while :; do sleep 0.1; done"
        do {
            let run = try await CommandRun.run(URL(fileURLWithPath: "/bin/sh"), ["-c", script], timeLimit: .seconds(1))
            Issue.record("the command ended on its own: \(run.status)")
        } catch let error as CommandTimedOut {
            #expect(error.stdout == "begun\nasked to end\n")
        }
    }

    @Test("A command starts with no signal blocked, so the SIGTERM that stops it reaches it", .tags(.process))
    func commandSignalMask() async throws {
        let run = try await CommandRun.run(URL(fileURLWithPath: "/bin/grep"), ["^SigBlk:", "/proc/self/status"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines).allSatisfy { $0 == "0" } == true, "\(run.stdout)")
    }

    @Test("A cancelled command run stops its command: the command never outlives its test", .tags(.process))
    func commandCancelled() async throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pidFile = folder.appendingPathComponent("pid")
        let running = Task {
            try await CommandRun.run(
                URL(fileURLWithPath: "/bin/sh"), ["-c", #"echo $$ > "$0.new" && mv "$0.new" "$0" && exec sleep 600"#, pidFile.path],
                timeLimit: .seconds(60))
        }
        try await waitUntil("the command to write its pid", within: .seconds(60)) { FileManager.default.fileExists(atPath: pidFile.path) }
        let pid = try #require(Int32(String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        running.cancel()
        await #expect(throws: CancellationError.self) { try await running.value }
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "the command \(pid) is still there")
    }

    /// More commands at once than the cooperative pool has threads, each waiting for this task
    /// to let it go once all have started: a run that held a thread while its command ran
    /// would leave this task none to do it with.
    @Test("Commands run at once hold none of the cooperative pool's threads", .tags(.process))
    func commandsAtOnceLeaveThePoolFree() async throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let count = ProcessInfo.processInfo.activeProcessorCount + 1
        let script = #"touch "$0/started-$1"; while [ ! -e "$0/go" ]; do sleep 0.05; done; echo "$1 went""#
        try await withThrowingTaskGroup(of: CommandRun.self) { group in
            for index in 0..<count {
                group.addTask {
                    try await CommandRun.run(URL(fileURLWithPath: "/bin/sh"), ["-c", script, folder.path, "\(index)"], timeLimit: .seconds(60))
                }
            }
            try await waitUntil("all \(count) commands to start", within: .seconds(60), interval: .milliseconds(20)) {
                (0..<count).allSatisfy { FileManager.default.fileExists(atPath: folder.appendingPathComponent("started-\($0)").path) }
            }
            #expect(FileManager.default.createFile(atPath: folder.appendingPathComponent("go").path, contents: nil))
            var went: Set<String> = []
            for try await run in group {
                #expect(run.status == 0, "\(run.stderr)")
                went.insert(run.stdout)
            }
            #expect(went == Set((0..<count).map { "\($0) went\n" }))
        }
    }

    @Test("Blocking work run off the pool holds none of its threads")
    func offPoolLeavesThePoolFree() async throws {
        let release = Watched(false)
        let count = ProcessInfo.processInfo.activeProcessorCount + 1
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<count {
                group.addTask { try await offPool("test-block") { try release.block(for: "the test to let the work go", within: .seconds(60)) { $0 } } }
            }
            // More blocked than the pool has threads, and this task still runs and sees them all.
            try await waitUntil("all \(count) to block", within: .seconds(60)) { release.waiting == count }
            release.set(true)
            var released = 0
            for try await value in group where value { released += 1 }
            #expect(released == count)
        }
    }

    /// A folder of its own for a test's commands to write in.
    static func scratchFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-command-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("A wait for requests ends when the request it waits for arrives, and times out when none does")
    func requestWait() async throws {
        let server = try LoopbackServer { _ in .html("<p>ok</p>") }
        defer { server.shutdown() }
        try await server.waitForRequests(within: .seconds(1)) { $0.isEmpty }
        async let arrived: Void = server.waitForRequests(within: .seconds(30)) { $0.contains { $0.path == "/b" } }
        for path in ["/a", "/b"] { try await offPool("get") { try Self.get(path, port: server.port) } }
        try await arrived
        await #expect(throws: WaitTimedOut.self) {
            try await server.waitForRequests(within: .milliseconds(200)) { $0.count > 2 }
        }
    }

    /// One request on a socket of its own, read to the server's close: no client that keeps
    /// descriptors open after it (the browser tests count this process's).
    static func get(_ path: String, port: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        try #require(send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while recv(fd, &buffer, buffer.count, 0) > 0 {}
    }

    @Test("A handler held until a second request is in flight goes on when it arrives, or at its deadline")
    func concurrencyWait() async throws {
        let meter = ConcurrencyMeter()
        meter.enter("a.test")
        let started = Date()
        // The meter's wait blocks (it is for a server's handler threads): waited for off the pool.
        #expect(try await !offPool("meter") { meter.waitUntil("a.test", inFlight: 2, before: started.addingTimeInterval(0.2)) })
        // Not a wait: the second request comes after the handler began waiting, what is tested.
        let second = Thread {
            Thread.sleep(forTimeInterval: 0.05); meter.enter("a.test")
        }
        second.start()
        #expect(try await offPool("meter") { meter.waitUntil("a.test", inFlight: 2, before: Date().addingTimeInterval(30)) })
        #expect(meter.peaks["a.test"] == 2)
    }

    @Test("A watched value wakes a task and a thread when it changes to what they wait for; a wait that is never met names what it waited for")
    func watchedValue() async throws {
        let value = Watched(0)
        async let reached = value.wait(for: "the value to reach 3") { $0 >= 3 }
        let blocked = Watched<Int?>(nil)
        let thread = Thread { blocked.set(try? value.block(for: "the value to reach 2") { $0 >= 2 }) }
        thread.start()
        // Changed only once both wait: what is tested is the wake-up, not the first check.
        try await waitUntil("the task and the thread to wait") { value.waiting == 2 }
        for _ in 1...3 { value.update { $0 += 1 } }
        #expect(try await reached == 3)
        #expect(try await blocked.wait(for: "the thread to be woken") { $0 != nil } ?? 0 >= 2)
        do {
            try await value.wait(for: "the value to go negative", within: .milliseconds(100)) { $0 < 0 }
            Issue.record("the wait should have timed out")
        } catch let error as WaitTimedOut {
            #expect(error.description.contains("the value to go negative"), "\(error)")
        }
        await #expect(throws: WaitTimedOut.self) { try await offPool("block") { try value.block(for: "never", within: .milliseconds(100)) { $0 < 0 } } }
    }

    @Test("A child's lines are awaited as it prints them; its output ending without the line fails the wait at once")
    func outputLines() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // Prints its second line only once it is told to (the test writes to its input).
        process.arguments = ["-c", "echo first; read go; echo \"second $go\""]
        let (input, output) = (Pipe(), Pipe())
        process.standardInput = input
        process.standardOutput = output
        let exited = process.watchExit()
        try process.run()
        let lines = OutputLines(output)
        #expect(try await lines.first(for: "the first line") { $0 == "first" } == "first")
        #expect(lines.lines == ["first"])
        input.fileHandleForWriting.write(Data("now\n".utf8))
        #expect(try await lines.first(for: "the second line") { $0.hasPrefix("second") } == "second now")
        await #expect(throws: OutputEnded.self) { try await lines.first(for: "a third line", within: .seconds(60)) { $0 == "third" } }
        try await exited.wait(for: "the shell to exit", within: .seconds(60))
        #expect(try await lines.end() == "first\nsecond now\n")
    }

    @Test("A kill switch kills the process it is armed for when the requests it counts reach the number, and not once disarmed")
    func killSwitch() async throws {
        func sleeper() throws -> (Process, Watched<Bool>) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sleep")
            process.arguments = ["60"]
            let exited = process.watchExit()
            try process.run()
            return (process, exited)
        }
        let kills = KillSwitch()
        let (armed, armedExit) = try sleeper()
        kills.arm(armed.processIdentifier, afterRequests: 2)
        kills.requestArrived()
        #expect(armed.isRunning && kills.isArmed)
        kills.requestArrived()
        try await armedExit.wait(for: "the armed process to be killed")
        #expect(armed.terminationReason == .uncaughtSignal)
        #expect(!kills.isArmed)

        let (spared, _) = try sleeper()
        defer { kill(spared.processIdentifier, SIGKILL) }
        kills.arm(spared.processIdentifier, afterRequests: 1)
        kills.disarm()
        kills.requestArrived()
        #expect(spared.isRunning)
    }
}
