/// Reads the first bytes of a media URL's answer — a ranged GET's 64 KiB, or all of a small
/// file — and says what they are, by their own structure, not by the URL or the content type.
///
/// ```swift
/// let facts = MediaSniffer.read(firstBytes)
/// // MediaFacts(format: .gif, width: 480, height: 270, animated: true, frames: 12, …)
/// ```
///
/// Every reader checks every length against the bytes it has and stops where they end, keeping
/// what it learnt: a cut file gives fewer facts, never a wrong one.
public enum MediaSniffer {
    /// The facts of `bytes`; format ``MediaFacts/Format/unknown`` when no reader knows them.
    public static func read(_ bytes: [UInt8]) -> MediaFacts {
        if let facts = GIFReader.read(bytes) ?? PNGReader.read(bytes) ?? WebPReader.read(bytes) ?? MP4Reader.read(bytes)
            ?? WebMReader.read(bytes) ?? PlaylistReader.read(bytes)
        {
            return facts
        }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return MediaFacts(format: .jpeg, animated: false, frames: 1) }
        return MediaFacts(format: .unknown)
    }
}
