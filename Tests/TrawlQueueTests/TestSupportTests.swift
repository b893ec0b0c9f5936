import Foundation
import Glibc
import Testing
import TrawlTesting

/// What the tests stand on: a database server's port that no other socket of the run can be
/// given, a server that holds none of the test process's sockets, and commands that cannot
/// hold the run forever.
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
    func reservation() throws {
        let ephemeral = try Self.ephemeralRange()
        let reservation = try PortReservation()
        let port = reservation.port
        #expect(!ephemeral.contains(port), "\(port) is in \(ephemeral)")
        let lockFile = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("trawl-ports/\(port).lock").path
        let other = open(lockFile, O_RDONLY | O_CLOEXEC)
        try #require(other >= 0)
        defer { close(other) }
        #expect(flock(other, LOCK_EX | LOCK_NB) != 0, "another reserver could take \(port)")
        #expect(try PortReservation().port != port)
        reservation.release()
        #expect(flock(other, LOCK_EX | LOCK_NB) == 0, "the released port is free to reserve")
    }

    @Test("The cluster's port is reserved, and its server holds none of this process's descriptors", .tags(.postgres))
    func clusterHoldsNothingOfOurs() throws {
        #expect(!(try Self.ephemeralRange()).contains(try PostgresCluster.shared().port))
        // A socket that is not close-on-exec, open while the server starts.
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socketDescriptor >= 0)
        defer { close(socketDescriptor) }
        let ours = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(socketDescriptor)")
        let cluster = try PostgresCluster()
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

    @Test("A command that outlives its time limit is killed and fails with what it printed", .tags(.process))
    func commandTimeLimit() throws {
        do {
            let run = try CommandRun.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "echo begun; exec sleep 600"], timeLimit: .seconds(1))
            Issue.record("the command ended on its own: \(run.status)")
        } catch let error as CommandTimedOut {
            #expect(error.stdout == "begun\n")
        }
    }
}
