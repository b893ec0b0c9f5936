import Foundation

/// Processes on this machine read from `/proc`: for tests and benchmarks that must see that a
/// child (a browser and its helpers) is gone, or measure a whole tree.
public enum ProcessTree {
    /// Every process whose parent is `pid`, and theirs, from `/proc/*/stat`.
    public static func descendants(of pid: Int32) -> [Int32] {
        var parents: [Int32: Int32] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let child = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // The command name (in parentheses) may hold spaces: fields are read after it.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 2, let parent = Int32(fields[1]) { parents[child] = parent }
        }
        var found: [Int32] = []
        var frontier = [pid]
        while let next = frontier.popLast() {
            for (child, parent) in parents where parent == next {
                found.append(child)
                frontier.append(child)
            }
        }
        return found
    }
}
