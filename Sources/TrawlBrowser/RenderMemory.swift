/// Remembers, per host, whether its pages needed a browser, so later pages of a script-driven
/// host go straight to the browser — re-checking statically every ``recheckEvery``-th page, in
/// case the site changed.
public actor RenderMemory {
    /// How to load a page of a host.
    public enum Plan: Sendable, Hashable {
        /// Fetch statically first, then let ``RenderDecision`` decide.
        case fetchFirst
        /// The host needed a browser last time: render directly.
        case renderDirectly
    }

    private struct HostRecord {
        var neededBrowser: Bool
        var pagesSinceCheck: Int
    }

    public let recheckEvery: Int
    private var hosts: [String: HostRecord] = [:]

    /// - Parameter recheckEvery: every this many pages of a script-driven host, one is fetched
    ///   statically again (at least 2).
    public init(recheckEvery: Int = 10) {
        self.recheckEvery = max(2, recheckEvery)
    }

    /// The plan for the next page of `host` (lower-cased by the caller or not: compared as given).
    public func plan(for host: String) -> Plan {
        guard var record = hosts[host.lowercased()], record.neededBrowser else { return .fetchFirst }
        record.pagesSinceCheck += 1
        if record.pagesSinceCheck >= recheckEvery {
            record.pagesSinceCheck = 0
            hosts[host.lowercased()] = record
            return .fetchFirst
        }
        hosts[host.lowercased()] = record
        return .renderDirectly
    }

    /// What the last static check of a page of `host` concluded.
    public func record(host: String, neededBrowser: Bool) {
        let key = host.lowercased()
        let previous = hosts[key]
        hosts[key] = HostRecord(neededBrowser: neededBrowser, pagesSinceCheck: neededBrowser == previous?.neededBrowser ? previous?.pagesSinceCheck ?? 0 : 0)
    }
}
