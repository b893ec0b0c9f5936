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
        guard let side = [width, height].compactMap({ $0 }).filter({ $0 > 0 }).max() else {
            self = .unknown
            return
        }
        self = side < 300 ? .small : side < 720 ? .medium : .large
    }
}
