public import Foundation

/// What a media URL really answered when it was probed (`--probe`): one ranged GET for its first
/// 64 KiB, read by their own structure. What the page claimed (kind, size) is in ``Media``; this
/// is what is there.
public struct MediaProbe: Sendable, Hashable, Codable {
    /// The HTTP status (`206` for a served range, `200` when the server ignored it); `0` when
    /// no answer came.
    public var status: Int
    public var contentType: String?
    /// The file's whole size in bytes, from `Content-Range` (or `Content-Length` when the range
    /// was ignored).
    public var bytes: Int?
    /// The format the bytes are in: `gif`, `png`, `apng`, `webp`, `mp4`, `webm`, `hls`, `dash`,
    /// `jpeg`, or `unknown`.
    public var format: String?
    /// `true` once a second frame is seen, `false` when the bytes prove a still, `nil` when they
    /// do not say.
    public var animated: Bool?
    /// Frames seen within the bytes read: at least this many.
    public var frames: Int?
    public var durationSeconds: Double?
    public var width: Int?
    public var height: Int?
    /// Gone (`404`, `410`) or not media at all (a page where a GIF was promised).
    public var dead: Bool
    /// Why no answer came (`host-not-found`, `timed-out`, …), when none did.
    public var error: String?
    /// When it was probed, ISO 8601 in UTC (`2026-11-26T06:30:00Z`).
    public var checkedAt: String

    public init(
        status: Int, contentType: String? = nil, bytes: Int? = nil, format: String? = nil, animated: Bool? = nil, frames: Int? = nil,
        durationSeconds: Double? = nil, width: Int? = nil, height: Int? = nil, dead: Bool = false, error: String? = nil,
        checkedAt: Date = Date()
    ) {
        self.status = status
        self.contentType = contentType
        self.bytes = bytes
        self.format = format
        self.animated = animated
        self.frames = frames
        self.durationSeconds = durationSeconds
        self.width = width
        self.height = height
        self.dead = dead
        self.error = error
        self.checkedAt = checkedAt.formatted(.iso8601)
    }
}
