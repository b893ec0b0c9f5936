import ArgumentParser
import Foundation
import Logging
import TrawlCore
import TrawlQueue

/// `trawl queue status --queue URL`.
struct QueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "Look at a shared PostgreSQL queue.",
        subcommands: [QueueStatusCommand.self],
        defaultSubcommand: QueueStatusCommand.self)
}

/// `trawl queue status --queue URL`: progress by state, host and worker.
struct QueueStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show a shared queue's progress by state, host and worker (safe while workers run).",
        discussion: "A table on a terminal, one JSON object otherwise (or with --json).")

    @Option(help: ArgumentHelp("The queue: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE.", valueName: "url"))
    var queue: String

    @Option(help: "Hosts listed (those with the most unfinished jobs first).")
    var hosts: Int = 20

    @Flag(help: "One JSON object (the default when the output is not a terminal).")
    var json = false

    @Flag(help: "A table even when the output is not a terminal.")
    var text = false

    func validate() throws {
        if json && text { throw ValidationError("--json and --text are exclusive") }
        if hosts < 0 { throw ValidationError("--hosts must not be negative") }
    }

    func run() async throws {
        let status: QueueStatus
        let topHosts = hosts
        do {
            let location = try QueueLocation(queue)
            status = try await QueueStore.withStore(location, logger: Logger(label: "trawl.queue"), connections: 1) { store in
                try await store.status(topHosts: topHosts)
            }
        } catch {
            Diagnostics.write("trawl queue status: " + ErrorSentence.describe(error))
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        if json || (!text && isatty(STDOUT_FILENO) == 0) {
            print(String(decoding: try TrawlJSON.encoder().encode(status), as: UTF8.self))
            return
        }
        print(Self.table(status, now: Date().timeIntervalSince1970), terminator: "")
    }

    static func table(_ status: QueueStatus, now: Double) -> String {
        var out = ""
        let order = ["pending", "retry-later", "running", "done", "failed"]
        out += "jobs: \(status.total) (" + order.map { "\($0) \(status.states[$0] ?? 0)" }.joined(separator: ", ") + ")"
        if status.duplicates > 0 { out += ", \(status.duplicates) lines naming a URL listed before (each URL is fetched once)" }
        out += status.intakeComplete ? "\n" : "; lists still being pushed\n"
        if !status.hosts.isEmpty {
            out +=
                "\n"
                + Self.columns(
                    ["host", "waiting", "running", "done", "failed", "in flight", "next start"],
                    status.hosts.map { host in
                        let next = host.nextAllowed > now ? String(format: "in %.1f s", host.nextAllowed - now) : "now"
                        return [host.host, "\(host.pending)", "\(host.running)", "\(host.done)", "\(host.failed)", "\(host.inFlight)", next]
                    })
        }
        if !status.workers.isEmpty {
            out +=
                "\n"
                + Self.columns(
                    ["worker", "machine", "pid", "concurrency", "running", "finished", "last seen"],
                    status.workers.map { worker in
                        let seen = worker.stoppedAt != nil ? "stopped" : String(format: "%.0f s ago", max(0, now - worker.seenAt))
                        return [worker.id, worker.machine, "\(worker.pid)", "\(worker.concurrency)", "\(worker.running)", "\(worker.finished)", seen]
                    })
        }
        return out
    }

    /// Left-aligned columns, two blanks apart.
    static func columns(_ header: [String], _ rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n") + "\n"
    }
}
