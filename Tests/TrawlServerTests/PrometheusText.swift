/// A Prometheus text exposition read back: each sample's name, labels and value, so tests
/// assert on figures rather than on text layout.
struct PrometheusText {
    struct Sample: Hashable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    var samples: [Sample] = []
    /// `# TYPE` lines: metric name → type.
    var types: [String: String] = [:]

    init(_ text: String) throws {
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                if parts.count == 4 { types[String(parts[2])] = String(parts[3]) }
                continue
            }
            if line.hasPrefix("#") || line.isEmpty { continue }
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                throw Malformed(line: String(line))
            }
            let series = line[..<space]
            var labels: [String: String] = [:]
            let name: Substring
            if let open = series.firstIndex(of: "{") {
                guard series.last == "}" else { throw Malformed(line: String(line)) }
                name = series[..<open]
                let body = series[series.index(after: open)..<series.index(before: series.endIndex)]
                for pair in body.split(separator: ",") {
                    let kv = pair.split(separator: "=", maxSplits: 1)
                    guard kv.count == 2, kv[1].hasPrefix("\""), kv[1].hasSuffix("\"") else { throw Malformed(line: String(line)) }
                    labels[String(kv[0])] = String(kv[1].dropFirst().dropLast())
                }
            } else {
                name = series
            }
            samples.append(Sample(name: String(name), labels: labels, value: value))
        }
    }

    struct Malformed: Error { var line: String }

    /// The value of the sample named `name` whose labels include `labels`, summed over the rest.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        let matching = samples.filter { sample in
            sample.name == name && labels.allSatisfy { key, value in sample.labels[key] == value }
        }
        return matching.isEmpty ? nil : matching.map { $0.value }.reduce(0, +)
    }
}
