public import Foundation
import TrawlCore

/// The development set: real responses saved by other projects (each listed with its licence in
/// `Tests/Fixtures/DevSet/NOTICE`), labelled by hand in `Tests/Fixtures/DevSet/manifest.json`
/// with the page's own animated media and the traps the page holds. Unlike the third-party
/// corpus, it ships with the repository, so the accuracy floors can always run.
public enum DevSet {
    /// `Tests/Fixtures/DevSet` in the repository.
    public static var folder: URL {
        Corpus.repositoryRoot.appendingPathComponent("Tests/Fixtures/DevSet")
    }

    /// One labelled response of `manifest.json`.
    public struct Entry: Sendable, Codable, Hashable, CustomStringConvertible {
        public var file: String
        public var site: String
        public var source_repo: String
        public var source_path: String
        public var commit: String
        public var license: String
        /// The URL the response was served for: it is replayed there.
        public var original_url: String
        /// `html`, `json` or `har`.
        public var kind: String
        /// The page's own animated media (every rendition the labeller found); empty for a
        /// page with none of its own.
        public var expected_media: [String]
        /// What makes the page hard: `no-media`, `related-posts`, `comments`, `ui-gif`,
        /// `tracking-pixel`, `placeholder`, `state-object`, `rendition`, `duplicate-upload`.
        public var traps: [String]
        public var notes: String
        /// What the page is: `item`, `listing`, `article` or `none` (``PageKind``).
        public var page_kind: String?

        public var description: String { file }

        /// The half of the set this response is in, by its source repository.
        public var half: Half { Half(sourceRepository: source_repo) }

        /// Where the response is replayed with the site parsers.
        public var url: String { original_url }

        public var path: URL { DevSet.folder.appendingPathComponent(file) }

        /// The same path and query on a host no site parser knows: only the generic parsers
        /// can read the bytes there.
        public var unknownHostURL: String { DevSet.onUnknownHost(original_url) }
    }

    /// The two halves the set is split into, once and by source repository: rules are written
    /// looking at the *tune* half only, and a rule is kept only if the *check* half agrees. A
    /// repository's responses share its pages' habits, so a split by response would let a rule
    /// fitted to one page pass on its sibling.
    public enum Half: String, Sendable, CaseIterable, Comparable {
        case tune, check

        /// By the low bit of the repository name's 64-bit FNV-1a hash: fixed, and blind to
        /// what the repository holds.
        public init(sourceRepository: String) {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in sourceRepository.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
            self = hash & 1 == 1 ? .check : .tune
        }

        public static func < (a: Half, b: Half) -> Bool { a == .tune && b == .check }
    }

    /// The host the generic-only run serves every response from (`.example` is reserved).
    public static let unknownHost = "devset-unknown-host.example"

    /// `url` with its scheme and host replaced by `https://` and ``unknownHost``.
    public static func onUnknownHost(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return "https://\(unknownHost)/" }
        let rest = url[schemeEnd.upperBound...]
        let tail = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }).map { String(rest[$0...]) } ?? "/"
        return "https://\(unknownHost)" + (tail.hasPrefix("/") ? tail : "/" + tail)
    }

    /// Every entry of the manifest, in its order.
    /// - Throws: a decoding error, or ``CorpusError`` when the manifest lists nothing.
    public static func entries() throws -> [Entry] {
        let data = try Data(contentsOf: folder.appendingPathComponent("manifest.json"))
        let entries = try JSONDecoder().decode([Entry].self, from: data)
        guard !entries.isEmpty else { throw CorpusError(root: folder, "manifest.json lists no entry") }
        return entries
    }

    /// Counts behind recall and precision.
    public struct Tally: Sendable, Hashable {
        /// Expected media URLs, and how many of them some result carries.
        public var expected = 0, found = 0
        /// Results returned, and how many of them carry an expected URL.
        public var results = 0, right = 0
        /// Responses counted, how many of them failed to resolve (counted as no results), and
        /// how many returned at least one result.
        public var pages = 0, failures = 0, pagesWithResults = 0

        public init() {}

        /// Found / expected; 1 when nothing was expected.
        public var recall: Double { expected == 0 ? 1 : Double(found) / Double(expected) }
        /// Right / results; 1 when nothing was returned.
        public var precision: Double { results == 0 ? 1 : Double(right) / Double(results) }

        public static func + (a: Tally, b: Tally) -> Tally {
            var sum = a
            sum.expected += b.expected
            sum.found += b.found
            sum.results += b.results
            sum.right += b.right
            sum.pages += b.pages
            sum.failures += b.failures
            sum.pagesWithResults += b.pagesWithResults
            return sum
        }
    }

    /// Scores one response the way the accuracy benchmark always has: an expected URL is found
    /// when some result carries it (as its URL or a rendition's); a result is right when it
    /// carries an expected URL. URLs are compared by ``CanonicalURL/key(_:)``.
    /// - Parameter results: each returned media's URLs (`Media.allURLs`); `nil` when the
    ///   resolve failed.
    public static func score(expected: [String], results: [[String]]?) -> Tally {
        let expectedKeys = Set(expected.map(CanonicalURL.key))
        var tally = Tally()
        tally.pages = 1
        tally.failures = results == nil ? 1 : 0
        let results = results ?? []
        let carried = Set(results.flatMap { $0 }.map(CanonicalURL.key))
        tally.expected = expectedKeys.count
        tally.found = expectedKeys.intersection(carried).count
        tally.results = results.count
        tally.pagesWithResults = results.isEmpty ? 0 : 1
        tally.right = results.filter { !Set($0.map(CanonicalURL.key)).isDisjoint(with: expectedKeys) }.count
        return tally
    }

    /// Tallies over the whole set, by site and by trap class (a response counts in each of
    /// its classes).
    public struct Report: Sendable {
        public var overall = Tally()
        public var bySite: [String: Tally] = [:]
        public var byTrap: [String: Tally] = [:]
        /// By ``Half``, and by page kind (`unlabelled` for a response without one).
        public var byHalf: [Half: Tally] = [:]
        public var byPageKind: [String: Tally] = [:]
        /// By half, then by trap class: what a rule gains on one half and loses on the other.
        public var byHalfAndTrap: [Half: [String: Tally]] = [:]

        public init() {}

        public mutating func add(_ tally: Tally, for entry: Entry) {
            overall = overall + tally
            bySite[entry.site] = bySite[entry.site, default: Tally()] + tally
            var half = byHalfAndTrap[entry.half, default: [:]]
            for trap in Set(entry.traps) {
                byTrap[trap] = byTrap[trap, default: Tally()] + tally
                half[trap] = half[trap, default: Tally()] + tally
            }
            byHalfAndTrap[entry.half] = half
            byHalf[entry.half] = byHalf[entry.half, default: Tally()] + tally
            let kind = entry.page_kind ?? "unlabelled"
            byPageKind[kind] = byPageKind[kind, default: Tally()] + tally
        }
    }
}
