import Foundation
import FuzzSupport
import ScanCheck

/// The streaming HTML scanner fed the document in pieces of sizes drawn from the input, checked
/// against the same document scanned in one piece. Input: one flag byte (declared charset, the
/// thinned feed on or off), eight bytes seeding the chunk sizes, then the document.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let flags = input.byte()
    let seed = input.word()
    let declared: String? = [nil, "utf-8", nil, "windows-1252"][Int(flags & 3)]
    let thins = flags & 4 == 0
    checkChunkedScanEqualsWhole(Data(input.rest), declaredCharset: declared, thins: thins, seed: seed)
    return 0
}

@_cdecl("fuzz_html_scanner_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
