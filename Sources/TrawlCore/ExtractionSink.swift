/// Receives what every search and page resolution found, when it ends: the local index is one.
///
/// ``SearchProvider`` hands each finished stream to the environment's sink. ``record(_:)`` is
/// called on the extraction's own task and must return at once (queue the work, never do it
/// there): a sink must never slow extraction down.
public protocol ExtractionSink: Sendable {
    func record(_ extraction: Extraction)
}

/// What one request's stream yielded, deduplicated by canonical URL.
public struct Extraction: Sendable {
    public var request: Request
    /// The engine that answered (`web`, `giphy`, `local`).
    public var engine: String
    public var media: [Media]
    /// The stream finished on its own: ``media`` is everything the source has (a page's full
    /// list). `false` when it failed or was cancelled part way: ``media`` is only some of it.
    public var isComplete: Bool

    public init(request: Request, engine: String, media: [Media], isComplete: Bool) {
        self.request = request
        self.engine = engine
        self.media = media
        self.isComplete = isComplete
    }
}
