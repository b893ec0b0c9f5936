import Foundation

extension SmokeReport {
    /// One `testsuite` per site, one `testcase` per case; fail → `<failure>`, degraded →
    /// `<failure type="degraded">`, skipped → `<skipped>`.
    package func junit() -> String {
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        let failures = results.filter { $0.status == .fail || $0.status == .degraded }.count
        let skipped = results.filter { $0.status == .skipped }.count
        xml += #"<testsuites name="trawl smoke" tests="\#(results.count)" failures="\#(failures)" skipped="\#(skipped)" time="\#(time(results))">"# + "\n"
        for (site, cases) in Dictionary(grouping: results, by: \.site).sorted(by: { $0.key < $1.key }) {
            let f = cases.filter { $0.status == .fail || $0.status == .degraded }.count
            let s = cases.filter { $0.status == .skipped }.count
            xml +=
                #"  <testsuite name="\#(escape(site))" tests="\#(cases.count)" failures="\#(f)" skipped="\#(s)" time="\#(time(cases))" timestamp="\#(started)">"#
                + "\n"
            for result in cases {
                xml += #"    <testcase classname="smoke.\#(escape(site))" name="\#(escape(result.name))" time="\#(String(format: "%.3f", result.seconds))">"#
                let message = escape(result.explanation.joined(separator: "; "))
                switch result.status {
                case .pass: break
                case .degraded: xml += "\n" + #"      <failure type="degraded" message="\#(message)">\#(message)</failure>"# + "\n    "
                case .fail: xml += "\n" + #"      <failure type="fail" message="\#(message)">\#(message)</failure>"# + "\n    "
                case .skipped: xml += "\n" + #"      <skipped message="\#(message)"/>"# + "\n    "
                }
                xml += "</testcase>\n"
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    func time(_ results: [SmokeResult]) -> String { String(format: "%.3f", results.reduce(0) { $0 + $1.seconds }) }
}
