import FuzzSupport
import TrawlProbe

/// The media readers behind `--probe` (GIF, PNG/APNG, WebP, MP4, WebM, HLS, DASH) on any bytes:
/// no crash, no read past the end (ASan), and a cut never contradicts the whole — whatever the
/// first half of the input says about size, animation and running time, the whole input says
/// the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(FuzzInput(data, size).bytes)
    let whole = MediaSniffer.read(bytes)
    let half = MediaSniffer.read(Array(bytes.prefix(bytes.count / 2)))
    if half.format == whole.format {
        if let width = half.width, width != whole.width { violated("a cut says width \(width), the whole \(String(describing: whole.width))") }
        if let height = half.height, height != whole.height { violated("a cut says height \(height), the whole \(String(describing: whole.height))") }
        if let animated = half.animated, animated != whole.animated {
            violated("a cut says animated \(animated), the whole \(String(describing: whole.animated))")
        }
    }
    if let frames = whole.frames, frames < 0 { violated("negative frames") }
    if let seconds = whole.durationSeconds, !(seconds >= 0) { violated("a running time of \(seconds) s") }
    return 0
}

@_cdecl("fuzz_probe_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
