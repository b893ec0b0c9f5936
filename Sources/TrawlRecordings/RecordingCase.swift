public import Foundation
public import TrawlCore

/// What a recording must resolve to: `Recordings/<site>/<case>.case.json`, beside
/// `<case>.har`. The format is described in `Recordings/README.md`.
///
/// A replayed case pins exact URLs; a live case (the nightly smoke run against the real site)
/// states loosely what any healthy answer looks like, so it keeps passing while the site keeps
/// its shape and fails when the site moves its media elsewhere:
///
/// ```json
/// {
///   "input": "https://giphy.com/gifs/dancing-cat-Trawl0Cat1Demo",
///   "synthetic": true,
///   "expect": {
///     "status": "pass",
///     "minResults": 1, "maxResults": 1,
///     "media": ["https://media2.giphy.com/…/giphy.mp4", {"pattern": "giphy\\.gif$"}],
///     "fields": ["width", "height", "title"]
///   }
/// }
/// ```
///
/// ```json
/// {
///   "input": "https://giphy.com/gifs/the-office-no-steve-carell-12XMGIWtrHBl5e",
///   "expect": {"minResults": 1, "kinds": ["gif", "mp4"], "hosts": ["media*.giphy.com", "i.giphy.com"], "fields": ["title"]}
/// }
/// ```
public struct RecordingCase: Sendable, Codable, Hashable {
    /// The pasted URL or the query, exactly as a person would type it.
    public var input: String
    /// Where to start, as `trawl resolve --page` takes it (`offset:25`, `cursor:…`).
    public var page: String?
    public var description: String?
    /// Written for Trawl (a modelled page, a drift case), not recorded from a live site: the
    /// smoke run replays it but never sends it to the site. Every other case is *live*: the
    /// smoke run sends it to the site, and it may have no recording until `--record` makes one.
    public var synthetic: Bool
    /// The page fills itself in with scripts: the case runs with a headless browser (`auto`,
    /// unless `always` is asked), live and replayed; the browser's requests are recorded into
    /// and answered from the case's HAR. Cases without it never start a browser when replayed.
    public var browser: Bool
    public var expect: Expectation

    private enum CodingKeys: String, CodingKey { case input, page, description, synthetic, browser, expect }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        input = try c.decode(String.self, forKey: .input)
        page = try c.decodeIfPresent(String.self, forKey: .page)
        description = try c.decodeIfPresent(String.self, forKey: .description)
        synthetic = try c.decodeIfPresent(Bool.self, forKey: .synthetic) ?? false
        browser = try c.decodeIfPresent(Bool.self, forKey: .browser) ?? false
        expect = try c.decode(Expectation.self, forKey: .expect)
    }

    /// Written as read: `browser` only for a case that needs one.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(input, forKey: .input)
        try c.encodeIfPresent(page, forKey: .page)
        try c.encodeIfPresent(description, forKey: .description)
        try c.encode(synthetic, forKey: .synthetic)
        if browser { try c.encode(browser, forKey: .browser) }
        try c.encode(expect, forKey: .expect)
    }

    public init(
        input: String, page: String? = nil, description: String? = nil, synthetic: Bool = false, browser: Bool = false, expect: Expectation
    ) {
        self.input = input
        self.page = page
        self.description = description
        self.synthetic = synthetic
        self.browser = browser
        self.expect = expect
    }

    /// What the results must be.
    public struct Expectation: Sendable, Codable, Hashable {
        /// `pass`: the results must not be degraded (the site parser, or for sites without one
        /// the generic parsers, must produce them). `degraded`: a fallback may produce them.
        public var status: Status
        public var minResults: Int
        public var maxResults: Int?
        /// Each must be a result's URL or one of its renditions.
        public var media: [MediaMatch]
        /// Fields every result must have.
        public var fields: [Field]
        /// Loose, for live cases: hosts the media must be served from (`media*.giphy.com`: `*`
        /// stands for any run of characters). With ``kinds``, at least `max(minResults, 1)`
        /// results must have a URL (primary or rendition) on one of these hosts, of one of those kinds.
        public var hosts: [String]
        /// Loose, for live cases: the kinds that count (`gif`, `mp4`, …); empty for any animated kind.
        public var kinds: [MediaKind]

        public init(
            status: Status = .pass, minResults: Int = 1, maxResults: Int? = nil, media: [MediaMatch] = [], fields: [Field] = [],
            hosts: [String] = [], kinds: [MediaKind] = []
        ) {
            self.status = status
            self.minResults = minResults
            self.maxResults = maxResults
            self.media = media
            self.fields = fields
            self.hosts = hosts
            self.kinds = kinds
        }

        private enum CodingKeys: String, CodingKey { case status, minResults, maxResults, media, fields, hosts, kinds }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            status = try c.decodeIfPresent(Status.self, forKey: .status) ?? .pass
            minResults = try c.decodeIfPresent(Int.self, forKey: .minResults) ?? 0
            maxResults = try c.decodeIfPresent(Int.self, forKey: .maxResults)
            media = try c.decodeIfPresent([MediaMatch].self, forKey: .media) ?? []
            fields = try c.decodeIfPresent([Field].self, forKey: .fields) ?? []
            hosts = try c.decodeIfPresent([String].self, forKey: .hosts) ?? []
            kinds = try c.decodeIfPresent([MediaKind].self, forKey: .kinds) ?? []
        }

        /// Written as read: the loose keys only when a case uses them.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(status, forKey: .status)
            try c.encode(minResults, forKey: .minResults)
            try c.encodeIfPresent(maxResults, forKey: .maxResults)
            try c.encode(media, forKey: .media)
            try c.encode(fields, forKey: .fields)
            if !hosts.isEmpty { try c.encode(hosts, forKey: .hosts) }
            if !kinds.isEmpty { try c.encode(kinds, forKey: .kinds) }
        }
    }

    public enum Status: String, Sendable, Codable, Hashable {
        case pass, degraded
    }

    /// A media URL that must appear: exactly (after canonical folding), or matching a regular expression.
    public enum MediaMatch: Sendable, Codable, Hashable, CustomStringConvertible {
        case exact(String)
        case pattern(String)

        public init(from decoder: any Decoder) throws {
            if let url = try? decoder.singleValueContainer().decode(String.self) {
                self = .exact(url)
                return
            }
            let object = try decoder.singleValueContainer().decode([String: String].self)
            guard let pattern = object["pattern"] else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a media match is a URL string or {\"pattern\": …}"))
            }
            self = .pattern(pattern)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .exact(let url): try container.encode(url)
            case .pattern(let pattern): try container.encode(["pattern": pattern])
            }
        }

        public var description: String {
            switch self {
            case .exact(let url): url
            case .pattern(let pattern): "/\(pattern)/"
            }
        }

        /// Whether one of `urls` satisfies this match.
        public func matches(any urls: [String]) -> Bool {
            switch self {
            case .exact(let url):
                let key = CanonicalURL.key(url)
                return urls.contains { CanonicalURL.key($0) == key }
            case .pattern(let pattern):
                guard let regex = try? NSRegularExpression(pattern: pattern) else { return false }
                return urls.contains { regex.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil }
            }
        }
    }

    /// A field of ``Media`` a case can require.
    public enum Field: String, Sendable, Codable, Hashable, CaseIterable {
        case width, height, title, still, renditions, byteSize, page, caption, tags, durationSeconds

        public func isPresent(in media: Media) -> Bool {
            switch self {
            case .width: media.width != nil
            case .height: media.height != nil
            case .title: !(media.title ?? "").isEmpty
            case .still: media.still != nil
            case .renditions: !media.renditions.isEmpty
            case .byteSize: media.byteSize != nil
            case .page: !(media.page ?? "").isEmpty
            case .caption: !(media.caption ?? "").isEmpty
            case .tags: !(media.tags ?? []).isEmpty
            case .durationSeconds: (media.durationSeconds ?? 0) > 0
            }
        }
    }
}

extension RecordingCase {
    /// Reads a `.case.json`.
    public static func read(from file: URL) throws -> RecordingCase {
        do {
            return try JSONDecoder().decode(RecordingCase.self, from: Data(contentsOf: file))
        } catch let error as DecodingError {
            throw RecordingError(.invalidCase, file: file.path, RecordingError.describe(error))
        } catch {
            throw RecordingError(.invalidCase, file: file.path, "\(error)")
        }
    }

    public func write(to file: URL) throws {
        var data = try TrawlJSON.encoder(pretty: true).encode(self)
        data.append(0x0A)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file, options: .atomic)
    }
}
