public import Foundation
import TrawlCore
public import TrawlStore

/// Where a batch stands, as the progress display shows it.
public struct BatchSnapshot: Sendable, Hashable {
    /// Jobs known so far (grows while the list is still being read).
    public var total = 0
    public var done = 0
    public var failed = 0
    /// Jobs waiting for a retry time.
    public var waiting = 0
    public var inFlight = 0
    public var mediaFound = 0
    /// Finished pages that were rendered in the headless browser.
    public var pagesRendered = 0
    /// Jobs finished by this run, and the seconds it has been going.
    public var finishedThisRun = 0
    public var elapsed: Double = 0
    /// The input lists have been read to their end: ``total`` is final.
    public var totalKnown = false

    public init() {}

    public var finished: Int { done + failed }
    /// Jobs finished per second by this run.
    public var rate: Double { elapsed > 0 ? Double(finishedThisRun) / elapsed : 0 }
    /// Seconds left at the current rate, once the total is known.
    public var eta: Double? { totalKnown && rate > 0 ? Double(total - finished) / rate : nil }
}

/// Shows a batch's progress on standard error: a bar redrawn in place on a terminal, a plain
/// line every few seconds otherwise (logs, CI).
public final class BatchProgress {
    private let terminal: Bool
    private let interval: Double
    private var lastDraw: Double = 0
    private let write: (String) -> Void

    /// - Parameters:
    ///   - terminal: redraw a bar in place; by default, when standard error is a terminal.
    ///   - interval: seconds between plain lines (a bar redraws five times a second).
    public init(terminal: Bool = isatty(2) != 0, interval: Double = 5, write: @escaping (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        self.terminal = terminal
        self.interval = terminal ? 0.2 : interval
        self.write = write
    }

    public func update(_ snapshot: BatchSnapshot, force: Bool = false) {
        let now = Date().timeIntervalSince1970
        guard force || now - lastDraw >= interval else { return }
        lastDraw = now
        if terminal {
            write("\r\u{1B}[2K" + bar(snapshot))
        } else {
            write("trawl batch: " + Self.figures(snapshot) + "\n")
        }
    }

    /// Ends the bar's line before the summary prints.
    public func finish(_ snapshot: BatchSnapshot) {
        if terminal { write("\r\u{1B}[2K" + bar(snapshot) + "\n") } else { write("trawl batch: " + Self.figures(snapshot) + "\n") }
    }

    private func bar(_ s: BatchSnapshot) -> String {
        let width = 24
        let fraction = s.total > 0 ? Double(s.finished) / Double(s.total) : 0
        let filled = Int((fraction * Double(width)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] " + Self.figures(s)
    }

    /// The snapshot as the progress line shows it: `3/5 (60%) · 3 done · 0 failed · 1 rendered · …`.
    public static func figures(_ s: BatchSnapshot) -> String {
        let percent = s.total > 0 ? Int(Double(s.finished) / Double(s.total) * 100) : 0
        var parts = ["\(s.finished)/\(s.total)\(s.totalKnown ? "" : "+") (\(percent)%)", "\(s.done) done", "\(s.failed) failed"]
        if s.waiting > 0 { parts.append("\(s.waiting) waiting") }
        if s.pagesRendered > 0 { parts.append("\(s.pagesRendered) rendered") }
        parts.append("\(s.inFlight) in flight")
        parts.append(String(format: "%.1f/s", s.rate))
        if let eta = s.eta { parts.append("ETA " + duration(eta)) }
        return parts.joined(separator: " · ")
    }

    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole)s" }
        if whole < 3600 { return "\(whole / 60)m\(String(format: "%02d", whole % 60))s" }
        return "\(whole / 3600)h\(String(format: "%02d", whole / 60 % 60))m"
    }
}

/// The closing summary: outcomes, hosts, statuses, media, pages rendered, latency.
public enum BatchSummaryText {
    public static func render(_ summary: StoreSummary, elapsed: Double?, finishedThisRun: Int?) -> String {
        let p = summary.progress
        var lines: [String] = []
        var head = "\(Counted(p.total, "URL")): \(p[.done]) done, \(p[.failed]) failed"
        if p[.retryLater] > 0 { head += ", \(p[.retryLater]) waiting to retry" }
        if p[.pending] + p[.running] > 0 { head += ", \(p[.pending] + p[.running]) not yet tried" }
        // Said as what it is: a list that names a URL twice, not a fault.
        if p.duplicates > 0 { head += "; \(Counted(p.duplicates, "line")) named a URL listed before (each URL is fetched once)" }
        lines.append(head)
        lines.append("media found: \(p.mediaFound)")
        lines.append("pages rendered in the browser: \(p.pagesRendered)")
        if let elapsed, let finishedThisRun {
            let rate = elapsed > 0 ? Double(finishedThisRun) / elapsed : 0
            lines.append(String(format: "this run: %d finished in %.1f s (%.1f/s)", finishedThisRun, elapsed, rate))
        }
        if let p50 = summary.latencyP50, let p95 = summary.latencyP95 {
            lines.append("latency: p50 \(p50) ms, p95 \(p95) ms")
        }
        if !summary.byStatus.isEmpty {
            lines.append("by status: " + summary.byStatus.map { "\($0.status) \($0.results)" }.joined(separator: ", "))
        }
        if !summary.byHost.isEmpty {
            lines.append("by host:")
            for host in summary.byHost {
                lines.append("  \(host.host): \(host.results) (\(host.done) done, \(host.results - host.done) failed)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
