import Foundation
import TrawlCore

/// One page's change to the index: what the queue holds and coalesces.
struct PageUpdate: Sendable, Codable, Hashable {
    enum Mode: String, Sendable, Codable {
        /// The page's whole list: entries not in it leave the index.
        case replace
        /// Some of the page's media (a search result, a resolution cut short): added or updated,
        /// nothing removed.
        case merge
    }

    var page: String
    var mode: Mode
    var media: [Media]

    /// This update followed by `later`, as one: a later full list wins outright; a later partial
    /// one is laid over this one's list, its own version of a media winning.
    func coalesced(with later: PageUpdate) -> PageUpdate {
        guard later.mode == .merge else { return later }
        var merged = media
        var position: [String: Int] = [:]
        for (index, item) in merged.enumerated() { position[item.url] = index }
        for item in later.media {
            if let index = position[item.url] {
                merged[index] = item
            } else {
                position[item.url] = merged.count
                merged.append(item)
            }
        }
        return PageUpdate(page: page, mode: mode, media: merged)
    }

    /// The updates an extraction makes: a resolved URL updates its page (the whole list when the
    /// stream finished, else only what came); a search's results update each result's page.
    /// `!local` results are the index's own and change nothing.
    static func updates(for extraction: Extraction) -> [PageUpdate] {
        guard extraction.engine != LocalEngine.engineName else { return [] }
        if let url = extraction.request.query.url {
            let page = url.absoluteString
            if extraction.isComplete { return [PageUpdate(page: page, mode: .replace, media: extraction.media)] }
            return extraction.media.isEmpty ? [] : [PageUpdate(page: page, mode: .merge, media: extraction.media)]
        }
        var order: [String] = []
        var byPage: [String: [Media]] = [:]
        for item in extraction.media {
            let page = item.page ?? item.url
            if byPage[page] == nil { order.append(page) }
            byPage[page, default: []].append(item)
        }
        return order.map { PageUpdate(page: $0, mode: .merge, media: byPage[$0] ?? []) }
    }
}
