import ArgumentParser
import Foundation
import Trawl
import TrawlCore

/// `trawl index stats|rebuild|prune`: the local index `!local` searches.
struct IndexCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Look after the local index that !local searches.",
        discussion: """
            Every media resolve, batch and live smoke runs find is recorded in the local index (unless --no-index); `trawl resolve '!local cat site:giphy'` searches it.
            """,
        subcommands: [IndexStatsCommand.self, IndexRebuildCommand.self, IndexPruneCommand.self])
}

/// Opens the index a maintenance command works on; a missing `--index` file is made.
private func openIndex(_ options: IndexOptions, command: String) throws -> MediaIndex {
    guard let path = options.resolvedPath else { throw ValidationError("trawl index \(command) needs an index; drop --no-index") }
    let index = try MediaIndex(path: path)
    for warning in index.warnings { Diagnostics.write("trawl index \(command): warning: \(warning)") }
    return index
}

/// `trawl index stats [--json]`
struct IndexStatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "Pages, media, queued updates, size, and counts per site, kind and size.")

    @OptionGroup var index: IndexOptions

    @Flag(help: "One JSON object.")
    var json = false

    func run() async throws {
        let stats = try await openIndex(index, command: "stats").stats()
        if json {
            print(TrawlJSON.line(stats))
            return
        }
        func date(_ seconds: Double?) -> String {
            seconds.map { ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: $0)) } ?? "-"
        }
        func counts(_ list: [Facets.Count]) -> String {
            list.isEmpty ? "-" : list.map { "\($0.value) \($0.count)" }.joined(separator: ", ")
        }
        print(
            """
            index:   \(stats.path)
            size:    \(ByteCountFormatter.string(fromByteCount: stats.bytes, countStyle: .file))
            pages:   \(stats.pages)
            media:   \(stats.media)
            queued:  \(stats.pending)
            oldest:  \(date(stats.oldest))
            newest:  \(date(stats.newest))
            sites:   \(counts(stats.facets.site))
            kinds:   \(counts(stats.facets.kind))
            sizes:   \(counts(stats.facets.size))
            """)
    }
}

/// `trawl index rebuild`
struct IndexRebuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rebuild",
        abstract: "Apply queued updates, rebuild the full-text index from the stored media, and compact the file.")

    @OptionGroup var index: IndexOptions

    func run() async throws {
        let opened = try openIndex(index, command: "rebuild")
        try await opened.rebuild()
        let stats = try await opened.stats()
        Diagnostics.write(
            "trawl index rebuild: \(stats.media) media on \(stats.pages) pages, \(ByteCountFormatter.string(fromByteCount: stats.bytes, countStyle: .file))")
    }
}

/// `trawl index prune --older-than 30d`
struct IndexPruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune", abstract: "Remove pages (and their media) not indexed again for a while.")

    @OptionGroup var index: IndexOptions

    @Option(help: "How long since a page was last indexed: 90s, 45m, 12h, 30d, 2w.")
    var olderThan: String

    func validate() throws {
        guard AgeText.seconds(olderThan) != nil else {
            throw ValidationError("--older-than '\(olderThan)' is not a duration like 90s, 45m, 12h, 30d or 2w")
        }
    }

    func run() async throws {
        let seconds = AgeText.seconds(olderThan) ?? 0
        let removed = try await openIndex(index, command: "prune").prune(indexedBefore: Date().addingTimeInterval(-seconds))
        Diagnostics.write("trawl index prune: removed \(removed.media) media on \(Counted(removed.pages, "page")) indexed more than \(olderThan) ago")
    }
}

/// Reads `30d`-style durations.
enum AgeText {
    static func seconds(_ text: String) -> Double? {
        guard let unit = text.last, let amount = Double(text.dropLast()), amount >= 0, amount.isFinite else { return nil }
        switch unit {
        case "s": return amount
        case "m": return amount * 60
        case "h": return amount * 3600
        case "d": return amount * 86400
        case "w": return amount * 7 * 86400
        default: return nil
        }
    }
}
