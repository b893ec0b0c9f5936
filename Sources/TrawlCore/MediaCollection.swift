/// A list of media that holds each file once.
///
/// Two sightings are the same media when any of their URLs share a ``CanonicalURL/key(_:)`` or
/// an ``UploadIdentity`` token (another size, format or host of one upload): the second fills
/// the first's missing fields and adds its new renditions.
public struct MediaCollection: Sendable {
    public private(set) var media: [Media] = []
    private var indexByKey: [String: Int] = [:]

    public init() {}

    public init(_ media: some Sequence<Media>) {
        insert(contentsOf: media)
    }

    public var count: Int { media.count }

    /// Whether `item` is one of these (a URL's key or an upload identity in common).
    public func contains(_ item: Media) -> Bool {
        Self.keys(of: item).contains { indexByKey[$0] != nil }
    }

    /// Inserts or merges; returns whether `item` was new.
    @discardableResult
    public mutating func insert(_ item: Media) -> Bool {
        let keys = Self.keys(of: item)
        guard let existing = keys.first(where: { indexByKey[$0] != nil }).flatMap({ indexByKey[$0] }) else {
            media.append(item)
            for key in keys { indexByKey[key] = media.count - 1 }
            return true
        }
        media[existing].absorb(item)
        // The merged media's keys are its own (already indexed) and `item`'s.
        for key in keys { indexByKey[key] = existing }
        return false
    }

    /// Every URL's key, then every URL's upload identity (tokens hold a `|`, which a
    /// canonical key of a URL never does unescaped).
    static func keys(of item: Media) -> [String] {
        let urls = item.allURLs
        return urls.map(CanonicalURL.key) + urls.flatMap(UploadIdentity.tokens)
    }

    /// Inserts each; returns how many were new.
    @discardableResult
    public mutating func insert(contentsOf items: some Sequence<Media>) -> Int {
        var added = 0
        for item in items where insert(item) { added += 1 }
        return added
    }
}

extension Media {
    /// Fills what `self` lacks from `other`, a sighting of the same media.
    mutating func absorb(_ other: Media) {
        width = width ?? other.width
        height = height ?? other.height
        byteSize = byteSize ?? other.byteSize
        durationSeconds = durationSeconds ?? other.durationSeconds
        title = title ?? other.title
        still = still ?? other.still
        page = page ?? other.page
        if let more = other.evidence {
            evidence = (evidence ?? []) + more.filter { !(evidence ?? []).contains($0) }
        }
        var known = Set(allURLs.map(CanonicalURL.key))
        let candidates =
            [Rendition(url: other.url, kind: other.kind, width: other.width, height: other.height, byteSize: other.byteSize)]
            + other.renditions
        for rendition in candidates where known.insert(CanonicalURL.key(rendition.url)).inserted {
            renditions.append(rendition)
        }
    }
}

extension AsyncSequence where Element == ResultSet, Self: Sendable {
    /// One growing list: after each result set, every media seen so far, each file once.
    public func mergedMedia() -> AsyncThrowingStream<[Media], any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                var collection = MediaCollection()
                do {
                    for try await set in self {
                        if collection.insert(contentsOf: set.media) > 0 || set.media.isEmpty == false {
                            continuation.yield(collection.media)
                        }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
