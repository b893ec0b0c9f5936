/// Site parsers first, then generic metadata parsers, then the fallback.
///
/// - Site parsers that claim a payload run in order; the first with media answers.
/// - Otherwise every generic parser that claims it runs, and their media are merged.
/// - Otherwise the fallback parsers run (when the caller asks for them).
///
/// When a site parser claimed the payload but threw or found nothing and a later stage found
/// media, the result records a ``Degradation`` naming the site parser and why.
public struct ParserChain: Sendable {
    public let parsers: [any Parser]
    /// ``parsers`` of each stage, by the stage's raw value: every payload asks each stage once.
    private let byStage: [[any Parser]]

    public init(_ parsers: [any Parser]) {
        // A stable sort keeps registration order within a stage.
        let sorted = parsers.enumerated()
            .sorted { ($0.element.stage, $0.offset) < ($1.element.stage, $1.offset) }
            .map(\.element)
        self.parsers = sorted
        // `allCases` is in declaration order, the order of the raw values 0, 1, 2.
        byStage = ParserStage.allCases.map { stage in sorted.filter { $0.stage == stage } }
    }

    /// Which stages to run.
    public struct Stages: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let site = Stages(rawValue: 1)
        public static let generic = Stages(rawValue: 2)
        public static let fallback = Stages(rawValue: 4)
        public static let all: Stages = [.site, .generic, .fallback]
        public static let structured: Stages = [.site, .generic]
    }

    /// Parsers of `stage` that claim `info`.
    public func claimants(of info: PayloadInfo, stage: ParserStage) -> [any Parser] {
        byStage[stage.rawValue].filter { $0.canParse(info) }
    }

    /// Runs the chain over one payload. Never throws: parser errors become diagnostics.
    public func parse(_ payload: Payload, stages: Stages = .all) -> ResultSet {
        var failures: [Degradation.Failure] = []
        var diagnostics: [Diagnostic] = []

        if stages.contains(.site) {
            for parser in claimants(of: payload.info, stage: .site) {
                switch run(parser, payload) {
                case .success(let set) where !set.media.isEmpty || set.isDefinitive:
                    return set
                case .success(var set):
                    failures.append(.init(parser: parser.name, reason: "found nothing"))
                    // A site parser may rightly say "this page has no media"; keep its notes.
                    diagnostics += set.diagnostics
                    set.diagnostics = []
                case .failure(let error):
                    failures.append(.init(parser: parser.name, reason: ErrorSentence.describe(error)))
                    diagnostics.append(Diagnostic(.warning, ErrorSentence.describe(error), source: parser.name))
                }
            }
        }

        for (stage, enabled) in [(ParserStage.generic, stages.contains(.generic)), (.fallback, stages.contains(.fallback))] where enabled {
            var merged = MediaCollection()
            var answered: [String] = []
            var total: Int?
            var next: Pagination?
            for parser in claimants(of: payload.info, stage: stage) {
                switch run(parser, payload) {
                case .success(let set):
                    if merged.insert(contentsOf: set.media) > 0 { answered.append(parser.name) }
                    total = total ?? set.total
                    next = next ?? set.next
                    diagnostics += set.diagnostics
                case .failure(let error):
                    diagnostics.append(Diagnostic(.warning, ErrorSentence.describe(error), source: parser.name))
                }
            }
            if !merged.media.isEmpty {
                let name = answered.joined(separator: "+")
                return ResultSet(
                    media: merged.media, total: total, next: next,
                    provenance: Provenance(parser: name, origin: payload.info.origin, payloadURL: payload.info.url.absoluteString),
                    degradation: failures.isEmpty ? nil : Degradation(failures: failures, answeredBy: name),
                    diagnostics: diagnostics)
            }
        }
        return ResultSet(
            media: [], provenance: Provenance(parser: "none", origin: payload.info.origin, payloadURL: payload.info.url.absoluteString),
            degradation: nil, diagnostics: diagnostics + failures.map { Diagnostic(.info, $0.reason, source: $0.parser) })
    }

    private func run(_ parser: any Parser, _ payload: Payload) -> Result<ResultSet, any Error> {
        Result { try parser.parse(payload) }
    }
}
