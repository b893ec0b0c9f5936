import Foundation
import GRDB
import TrawlCore

@testable import TrawlIndex

/// A fresh index file in a folder of its own.
func temporaryIndexPath() -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-index-\(UUID().uuidString)")
    return folder.appendingPathComponent("index.sqlite").path
}

func media(_ url: String, title: String?, kind: MediaKind = .gif, width: Int? = 200, height: Int? = 150, page: String? = nil) -> Media {
    Media(url: url, kind: kind, width: width, height: height, title: title, page: page, provenance: Provenance(parser: "test", origin: .document))
}

/// What resolving `page` to `found` tells the index (`complete`: the stream finished).
func extraction(page: String, _ found: [Media], complete: Bool = true) -> Extraction {
    Extraction(request: Request(page), engine: "web", media: found, isComplete: complete)
}

extension MediaIndex {
    /// Queues and applies at once, as a writer's flush does.
    func apply(_ extraction: Extraction, now: Double = 1000) async throws {
        try await enqueue(PageUpdate.updates(for: extraction), now: now)
        try await drainPending(now: now)
    }

    func search(_ text: String, pagination: Pagination = .start, limit: Int = 25) async throws -> LocalPage {
        try await search(LocalQuery(parsing: text), pagination: pagination, limit: limit)
    }

    func titles(_ text: String) async throws -> [String] {
        try await search(text).media.map { $0.title ?? "" }
    }
}

/// A small index of three sites' pages.
func sampleIndex() async throws -> MediaIndex {
    let index = try MediaIndex(path: temporaryIndexPath())
    try await index.apply(
        extraction(
            page: "https://giphy.com/gifs/cat-typing",
            [
                media("https://media.giphy.com/1.gif", title: "Cat typing on a keyboard"),
                media("https://media.giphy.com/1.mp4", title: "Cat typing fast", kind: .mp4, width: 480, height: 270),
            ]))
    try await index.apply(
        extraction(
            page: "https://tenor.com/view/dog",
            [
                media("https://media.tenor.com/2.gif", title: "Dog typing a letter", width: 1280, height: 720),
                media("https://media.tenor.com/3.mp4", title: "A cat and a dog", kind: .mp4, width: nil, height: nil),
            ]))
    try await index.apply(
        extraction(
            page: "https://www.example.co.uk/post",
            [
                media("https://example.co.uk/4.webp", title: "Typewriter <sound> & cat", kind: .webp)
            ]))
    return index
}

/// An index file as an older version left it: migrated up to `migration` only, then `fill` run
/// in one write (its rows written by that version's triggers). Returns the file's path.
func indexFile(migratedUpTo migration: String, _ fill: @escaping @Sendable (Database) throws -> Void) async throws -> String {
    let path = temporaryIndexPath()
    try FileManager.default.createDirectory(
        at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
    let queue = try DatabaseQueue(path: path)
    try IndexSchema.migrator.migrate(queue, upTo: migration)
    try await queue.write(fill)
    try queue.close()
    return path
}
