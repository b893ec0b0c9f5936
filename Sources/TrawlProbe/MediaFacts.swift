/// What the first bytes of a media file say about it: its format, size, whether it moves, for
/// how long. Every field is `nil` when the bytes read do not say (a file cut short, `moov` at the
/// end of an MP4): a reader never guesses.
public struct MediaFacts: Sendable, Hashable, Codable {
    /// The container the bytes are in.
    public enum Format: String, Sendable, Hashable, Codable {
        case gif, png, apng, webp, mp4, webm, hls, dash, jpeg
        /// Bytes of no format a reader knows (an HTML page where a GIF was promised).
        case unknown
    }

    /// A variant of an HLS or DASH playlist.
    public struct Variant: Sendable, Hashable, Codable {
        public var width: Int?
        public var height: Int?
        /// Bits per second, as the playlist declares it.
        public var bandwidth: Int?

        public init(width: Int? = nil, height: Int? = nil, bandwidth: Int? = nil) {
            self.width = width
            self.height = height
            self.bandwidth = bandwidth
        }
    }

    public var format: Format
    public var width: Int?
    public var height: Int?
    /// `true` once a second frame (or an animation header that promises one) is seen, `false`
    /// when the bytes prove a still, `nil` when they do not say.
    public var animated: Bool?
    /// Frames seen in the bytes read: at least this many.
    public var frames: Int?
    /// The running time, when the bytes declare it (an MP4 `mvhd`, a WebM `Duration`, a whole
    /// GIF's frame delays, a finished HLS playlist).
    public var durationSeconds: Double?
    /// How often an animation plays: `0` forever; `nil` when not declared.
    public var loopCount: Int?
    /// The variants of a playlist (HLS master, DASH representations).
    public var variants: [Variant]

    public init(
        format: Format, width: Int? = nil, height: Int? = nil, animated: Bool? = nil, frames: Int? = nil,
        durationSeconds: Double? = nil, loopCount: Int? = nil, variants: [Variant] = []
    ) {
        self.format = format
        self.width = width
        self.height = height
        self.animated = animated
        self.frames = frames
        self.durationSeconds = durationSeconds
        self.loopCount = loopCount
        self.variants = variants
    }
}
