/// How big a media is, by its longer side: what `size:small|medium|large` filters on.
public enum SizeClass: String, Sendable, Hashable, CaseIterable, Codable {
    /// Longer side under 300 pixels (thumbnails, Giphy's `fixed_height` 200).
    case small
    /// 300 to 719 pixels.
    case medium
    /// 720 pixels or more.
    case large
    /// The source gave no dimensions.
    case unknown

    public init(width: Int?, height: Int?) {
        // Without building an array: this runs for every media indexed.
        let side = max(width ?? 0, height ?? 0)
        guard side > 0 else {
            self = .unknown
            return
        }
        self = side < 300 ? .small : side < 720 ? .medium : .large
    }
}
