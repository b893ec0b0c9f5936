/// Remembers, per host, whether its pages needed a browser, so later pages of a script-driven
/// host go straight to the browser — re-checking statically every ``recheckEvery``-th page, in
/// case the site changed.
///
/// A host goes straight to the browser only after ``confirmations`` pages in a row needed it,
/// and any page that did not resets the count: one host may serve static articles and a few
/// script-driven pages (a mirror, a CMS with one app page), and one such page must not send
/// every later article through the browser.
package actor RenderMemory {
    /// How to load a page of a host.
    package enum Plan: Sendable, Hashable {
        /// Fetch statically first, then let ``RenderDecision`` decide.
        case fetchFirst
        /// The host needed a browser last time: render directly.
        case renderDirectly
    }

    private struct HostRecord {
        /// Pages in a row that needed the browser when fetched statically first.
        var streak: Int
        var pagesSinceCheck: Int
    }

    package let recheckEvery: Int
    package let confirmations: Int
    private var hosts: [String: HostRecord] = [:]

    /// - Parameters:
    ///   - recheckEvery: every this many pages of a script-driven host, one is fetched
    ///     statically again (at least 2).
    ///   - confirmations: pages in a row that must need the browser before the host's pages go
    ///     straight to it (at least 1).
    package init(recheckEvery: Int = 10, confirmations: Int = 3) {
        self.recheckEvery = max(2, recheckEvery)
        self.confirmations = max(1, confirmations)
    }

    /// The plan for the next page of `host` (compared case-insensitively).
    package func plan(for host: String) -> Plan {
        guard var record = hosts[host.lowercased()], record.streak >= confirmations else { return .fetchFirst }
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
    package func record(host: String, neededBrowser: Bool) {
        let key = host.lowercased()
        var record = hosts[key] ?? HostRecord(streak: 0, pagesSinceCheck: 0)
        record.streak = neededBrowser ? record.streak + 1 : 0
        if !neededBrowser { record.pagesSinceCheck = 0 }
        hosts[key] = record
    }
}
