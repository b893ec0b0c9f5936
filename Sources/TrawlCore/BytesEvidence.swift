/// Reads a media URL's first bytes: what a file says of itself (format, size, frames).
public protocol MediaBytesReader: Sendable {
    /// One URL's first bytes, read.
    /// - Parameters:
    ///   - url: the media URL.
    ///   - context: the request it serves (for recording and logs).
    /// - Returns: what the URL answered; `status` 0 and an error when nothing did.
    func probe(_ url: String, context: Request?) async -> MediaProbe
}

/// Bytes as evidence: when a page's markup says nothing either way about an image it shows (no
/// declared size, no media host, no larger file beside it), the image's own first bytes decide
/// — a 480×270 animation in an article's body is content; a 16×16 one, or a still, is not.
///
/// Bounded per page: at most ``maxCandidates`` files, read at once, within ``budget``; what has
/// not answered by then stays undecided (dropped, as without this).
public struct BytesEvidence: Sendable {
    public var reader: any MediaBytesReader
    /// Files read per page at most.
    public var maxCandidates: Int
    /// How long a page waits for them in all.
    public var budget: Duration

    public init(reader: any MediaBytesReader, maxCandidates: Int = 12, budget: Duration = .seconds(3)) {
        self.reader = reader
        self.maxCandidates = maxCandidates
        self.budget = budget
    }

    /// Reads `urls` (the first ``maxCandidates``) at once; returns what answered within ``budget``
    /// by `clock`, the rest cancelled.
    public func read(_ urls: [String], for request: Request, clock: any Clock<Duration>) async -> [String: MediaProbe] {
        let urls = Array(urls.prefix(maxCandidates))
        guard !urls.isEmpty else { return [:] }
        let budget = budget
        let reader = reader
        return await withTaskGroup(of: (String, MediaProbe)?.self) { group in
            group.addTask {
                try? await clock.sleep(for: budget)
                return nil
            }
            for url in urls { group.addTask { (url, await reader.probe(url, context: request)) } }
            var probes: [String: MediaProbe] = [:]
            for await answer in group {
                guard let (url, probe) = answer else { break }
                probes[url] = probe
                if probes.count == urls.count { break }
            }
            group.cancelAll()
            return probes
        }
    }
}
