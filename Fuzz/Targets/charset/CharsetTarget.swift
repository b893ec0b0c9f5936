import Foundation
import FuzzSupport
import ScanCheck
import TrawlHTML

/// The charset decision and the transcoding read of legacy-charset documents. Input: one byte
/// picking the declared (header) charset, eight bytes seeding chunk sizes, then the document.
///
/// Checks: deciding from a growing prefix (as the stream scanner does) gives the decision
/// taken from the whole document; the stream scanner reads the document the same in pieces
/// as in one (libxml2 transcodes it to UTF-8); the DOM reader reads it too.
let declaredCharsets: [String?] = [
    nil, "utf-8", "windows-1251", "gbk", "shift_jis", "euc-jp", "iso-8859-2", "koi8-r", "big5", "euc-kr",
    "utf-16le", "utf-16be", "latin1", "x-no-such-charset", "\"UTF8\"", "",
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let declared = declaredCharsets[Int(input.byte() & 15)]
    let seed = input.word()
    let document = input.rest

    guard let whole = Charset.detect(document, declared: declared, isComplete: true) else {
        violated("no decision on a complete document")
    }
    var sizes = SplitMix64(seed: seed)
    var length = 0
    while length < document.count {
        length = min(length + sizes.chunkSize(), document.count)
        if let early = Charset.detect(UnsafeBufferPointer(rebasing: document[..<length]), declared: declared, isComplete: false) {
            if early != whole { violated("decided \(early) from \(length) bytes, \(whole) from all \(document.count)") }
            break
        }
    }

    let bytes = Data(document)
    checkChunkedScanEqualsWhole(bytes, declaredCharset: declared, thins: true, seed: seed)
    if let parsed = try? HTMLDocument(parsing: bytes, url: "https://example.com/", encoding: declared) {
        _ = try? parsed.string("string(//title)")
        _ = try? parsed.select("//meta[@content]")
    }
    return 0
}

@_cdecl("fuzz_charset_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
