package import TrawlCore

/// One case's outcome in a smoke run.
package struct SmokeResult: Sendable, Codable, Hashable {
    /// `<site>/<case>`.
    package var name: String
    package var site: String
    /// The case's input: the URL or query it resolved.
    package var input: String
    package var status: SmokeStatus
    /// Why it is not a pass; empty for a pass.
    package var reasons: [String]
    /// About a pass: a drift case's fallback answered, as the case expects. Never a reason to
    /// look at the case.
    package var notes: [String]
    /// What was recorded but is gone now (JSON paths, meta keys, requests).
    package var vanished: [String]
    package var seconds: Double
    package var attempts: Int
    /// The media found: URL and still, for the report's thumbnails.
    package var media: [Found]
    /// Whether `--record` rewrote (or first wrote) this case's recording.
    package var rerecorded: Bool

    package init(
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
    package struct Found: Sendable, Codable, Hashable {
        package var url: String
        package var still: String?
        package var kind: String
        /// What its URL answered (`smoke --probe`).
        package var probe: MediaProbe?

        package init(url: String, still: String? = nil, kind: String, probe: MediaProbe? = nil) {
            self.url = url
            self.still = still
            self.kind = kind
            self.probe = probe
        }
    }

    /// What the report says after the status: the reasons and what vanished, or a pass's notes.
    package var explanation: [String] {
        status == .pass ? notes : reasons + vanished.map { "vanished: \($0)" }
    }
}

extension SmokeResult {
    private enum CodingKeys: String, CodingKey {
        case name, site, input, status, reasons, notes, vanished, seconds, attempts, media, rerecorded
    }

    /// Reads history lines written before `notes` existed too.
    package init(from decoder: any Decoder) throws {
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
