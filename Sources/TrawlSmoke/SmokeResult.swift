public import TrawlCore

/// One case's outcome in a smoke run.
public struct SmokeResult: Sendable, Codable, Hashable {
    /// `<site>/<case>`.
    public var name: String
    public var site: String
    /// The case's input: the URL or query it resolved.
    public var input: String
    public var status: SmokeStatus
    /// Why it is not a pass; empty for a pass.
    public var reasons: [String]
    /// About a pass: a drift case's fallback answered, as the case expects. Never a reason to
    /// look at the case.
    public var notes: [String]
    /// What was recorded but is gone now (JSON paths, meta keys, requests).
    public var vanished: [String]
    public var seconds: Double
    public var attempts: Int
    /// The media found: URL and still, for the report's thumbnails.
    public var media: [Found]
    /// Whether `--record` rewrote (or first wrote) this case's recording.
    public var rerecorded: Bool

    public init(
        name: String, site: String, input: String, status: SmokeStatus, reasons: [String] = [], notes: [String] = [],
        vanished: [String] = [], seconds: Double = 0, attempts: Int = 1, media: [Found] = [], rerecorded: Bool = false
    ) {
        self.name = name
        self.site = site
        self.input = input
        self.status = status
        self.reasons = reasons
        self.notes = notes
        self.vanished = vanished
        self.seconds = seconds
        self.attempts = attempts
        self.media = media
        self.rerecorded = rerecorded
    }

    /// One media file found, for the report.
    public struct Found: Sendable, Codable, Hashable {
        public var url: String
        public var still: String?
        public var kind: String
        /// What its URL answered (`smoke --probe`).
        public var probe: MediaProbe?

        public init(url: String, still: String? = nil, kind: String, probe: MediaProbe? = nil) {
            self.url = url
            self.still = still
            self.kind = kind
            self.probe = probe
        }
    }

    /// What the report says after the status: the reasons and what vanished, or a pass's notes.
    public var explanation: [String] {
        status == .pass ? notes : reasons + vanished.map { "vanished: \($0)" }
    }
}

extension SmokeResult {
    private enum CodingKeys: String, CodingKey {
        case name, site, input, status, reasons, notes, vanished, seconds, attempts, media, rerecorded
    }

    /// Reads history lines written before `notes` existed too.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try c.decode(String.self, forKey: .name), site: try c.decode(String.self, forKey: .site),
            input: try c.decode(String.self, forKey: .input), status: try c.decode(SmokeStatus.self, forKey: .status),
            reasons: try c.decodeIfPresent([String].self, forKey: .reasons) ?? [],
            notes: try c.decodeIfPresent([String].self, forKey: .notes) ?? [],
            vanished: try c.decodeIfPresent([String].self, forKey: .vanished) ?? [],
            seconds: try c.decodeIfPresent(Double.self, forKey: .seconds) ?? 0,
            attempts: try c.decodeIfPresent(Int.self, forKey: .attempts) ?? 1,
            media: try c.decodeIfPresent([Found].self, forKey: .media) ?? [],
            rerecorded: try c.decodeIfPresent(Bool.self, forKey: .rerecorded) ?? false)
    }
}
