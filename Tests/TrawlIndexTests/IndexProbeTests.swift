import Foundation
import GRDB
import Testing
import TrawlCore

@testable import TrawlIndex

/// What `--probe` found is stored with each media and filters `!local`: `animated:yes|no`,
/// `min-duration:`. Media never probed pass neither filter, unless the site stated a running
/// time: `min-duration:` reads that when no probe measured one.
@Suite("Local index: probe results")
struct IndexProbeTests {
    static func probed(_ url: String, title: String, animated: Bool?, seconds: Double?) -> Media {
        var found = media(url, title: title)
        found.probe = MediaProbe(
            status: 206, contentType: "image/gif", bytes: 90_000, format: "gif", animated: animated,
            frames: animated == true ? 12 : 1, durationSeconds: seconds, width: 480, height: 270)
        return found
    }

    static let found = [
        probed("https://media.giphy.com/long.gif", title: "cat long loop", animated: true, seconds: 6.5),
        probed("https://media.giphy.com/short.gif", title: "cat short loop", animated: true, seconds: 1.2),
        probed("https://media.giphy.com/still.gif", title: "cat still", animated: false, seconds: nil),
        media("https://media.giphy.com/unprobed.gif", title: "cat never probed"),
        stated("https://thumbs2.redgifs.com/Stated.mp4", title: "cat stated clip", seconds: 8.4, probe: nil),
        // The probe read the file: its 1.5 s wins over the 9 s the page claimed.
        stated("https://thumbs2.redgifs.com/Claimed.mp4", title: "cat claimed clip", seconds: 9, probe: 1.5),
    ]

    /// A media whose site states `seconds`, probed (running `probe` seconds) or not.
    static func stated(_ url: String, title: String, seconds: Double, probe: Double?) -> Media {
        var found = probe.map { probed(url, title: title, animated: true, seconds: $0) } ?? media(url, title: title)
        found.durationSeconds = seconds
        return found
    }

    /// Both write paths: the writer's straight group store, and the on-disk queue.
    enum Path: CaseIterable { case store, queue }

    static func index(_ path: Path) async throws -> MediaIndex {
        let index = try MediaIndex(path: temporaryIndexPath())
        let found = extraction(page: "https://giphy.com/gifs/cats", Self.found)
        switch path {
        case .store: try await index.store(PageUpdate.updates(for: found), now: 1000)
        case .queue: try await index.apply(found)
        }
        return index
    }

    @Test("animated: and min-duration: keep what the probes found", arguments: Path.allCases)
    func filters(_ path: Path) async throws {
        let index = try await Self.index(path)
        #expect(Set(try await index.titles("animated:yes")) == ["cat long loop", "cat short loop", "cat claimed clip"])
        #expect(try await index.titles("animated:no") == ["cat still"])
        #expect(Set(try await index.titles("min-duration:2")) == ["cat long loop", "cat stated clip"])
        #expect(Set(try await index.titles("cat min-duration:1")) == ["cat long loop", "cat short loop", "cat stated clip", "cat claimed clip"])
        #expect(try await index.titles("loop animated:yes min-duration:5s") == ["cat long loop"])
        #expect(try await index.titles("still animated:yes") == [])
        // A stated duration answers min-duration: only; animated: is the probe's word alone.
        #expect(try await index.titles("stated animated:yes") == [])
        // Counts and facets are of what passes.
        let page = try await index.search("loop animated:yes")
        #expect(page.total == 2)
        #expect(page.facets.kind == [.init(value: "gif", count: 2)])
        // Without a probe filter every media is there.
        #expect(try await index.search("cat").total == 6)
    }

    @Test("The stored media carries its probe", arguments: Path.allCases)
    func storedProbe(_ path: Path) async throws {
        let index = try await Self.index(path)
        let long = try #require(try await index.search("long").media.first)
        #expect(long.probe == Self.found[0].probe)
        #expect(try await index.search("never").media.first?.probe == nil)
        #expect(try await index.search("stated").media.first?.durationSeconds == 8.4)
    }

    @Test("A file from before probes were stored opens, its media unprobed")
    func olderFile() async throws {
        let path = try await indexFile(migratedUpTo: "v5-media-url-key") { db in
            try db.execute(sql: "INSERT INTO page (id, url, site, indexedAt) VALUES (1, 'https://giphy.com/gifs/old', 'giphy', 1)")
            let record = Data(MediaRecord.encode(media("https://media.giphy.com/old.gif", title: "old cat")))
            try db.execute(
                sql: """
                    INSERT INTO media (pageID, url, kind, sizeClass, site, pageURL, title, json, urlKey)
                    VALUES (1, 'https://media.giphy.com/old.gif', 'gif', 'small', 'giphy', 'https://giphy.com/gifs/old', 'old cat', ?, 1)
                    """, arguments: [record])
            try IndexSchema.indexPendingRows(db)
        }
        let index = try MediaIndex(path: path)
        #expect(try await index.titles("old") == ["old cat"])
        #expect(try await index.titles("old animated:no") == [])
        try await index.apply(extraction(page: "https://giphy.com/gifs/new", [Self.found[0]]))
        #expect(try await index.titles("animated:yes") == ["cat long loop"])
    }
}
