import FuzzSupport

@testable import TrawlProbe

/// Each media reader behind `--probe` on its own: the first byte picks the reader (GIF, PNG,
/// WebP, MP4, WebM, HLS, DASH), which gets the rest of the input behind its own magic, so every
/// input reaches the reader's walk instead of stopping at the sniffer's format check. Checked:
/// no crash, no read past the end (ASan), the reader claims the bytes, counts and times are
/// never negative, and a cut never contradicts the whole (size, animation).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Array(FuzzInput(data, size).bytes)
    guard let selector = input.first else { return 0 }
    let body = Array(input.dropFirst())
    let prefix = { (count: Int) in Array(body.prefix(count)) + [UInt8](repeating: 0, count: max(0, count - body.count)) }
    let reader: ([UInt8]) -> MediaFacts?
    let bytes: [UInt8]
    switch selector % 7 {
    case 0: (reader, bytes) = (GIFReader.read, Array("GIF89a".utf8) + body)
    case 1: (reader, bytes) = (PNGReader.read, PNGReader.signature + body)
    // The RIFF size from the input: it says where the file ends.
    case 2: (reader, bytes) = (WebPReader.read, Array("RIFF".utf8) + prefix(4) + Array("WEBP".utf8) + body.dropFirst(4))
    // The first box's size from the input, its type `ftyp`.
    case 3: (reader, bytes) = (MP4Reader.read, prefix(4) + Array("ftyp".utf8) + body.dropFirst(4))
    case 4: (reader, bytes) = (WebMReader.read, [0x1A, 0x45, 0xDF, 0xA3] + body)
    case 5: (reader, bytes) = (PlaylistReader.read, Array("#EXTM3U\n".utf8) + body)
    default: (reader, bytes) = (PlaylistReader.read, Array("<MPD ".utf8) + body)
    }
    guard let whole = reader(bytes) else {
        violated("reader \(selector % 7) did not claim bytes behind its own magic")
    }
    if let frames = whole.frames, frames < 0 { violated("negative frames") }
    if let seconds = whole.durationSeconds, !(seconds >= 0) { violated("a running time of \(seconds) s") }
    if let loops = whole.loopCount, loops < 0 { violated("a negative loop count") }
    // Half the bytes (never less than the magic): what it says of size and animation holds.
    if let half = reader(Array(bytes.prefix(max(bytes.count / 2, bytes.count - body.count)))), half.format == whole.format {
        if let width = half.width, width != whole.width { violated("a cut says width \(width), the whole \(String(describing: whole.width))") }
        if let height = half.height, height != whole.height { violated("a cut says height \(height), the whole \(String(describing: whole.height))") }
        if let animated = half.animated, animated != whole.animated {
            violated("a cut says animated \(animated), the whole \(String(describing: whole.animated))")
        }
    }
    return 0
}

@_cdecl("fuzz_probe_readers_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
