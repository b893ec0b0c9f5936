import Foundation
import FuzzSupport
import TrawlCore

@testable import TrawlHTML

/// The JSON cut out of scripts, and the two JSON readers. On the input as a script: every
/// payload the extractor keeps is JSON by both the syntax check and the reader. On the input
/// as JSON: the syntax check and the reader accept the same documents. (Not compared with
/// `JSONDecoder`: it takes `[1,]` and keeps the first of duplicate keys where the reader keeps
/// the last; the corpus test compares the two on real payloads.)
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).bytes
    for found in ScriptJSONExtractor.extract(from: bytes) {
        if !found.json.withUnsafeBufferPointer(JSONSyntax.isValid) { violated("kept a payload the syntax check refuses") }
        if (try? JSONValue(parsing: Data(found.json))) == nil { violated("kept a payload the reader refuses") }
    }

    let json = Data(bytes)
    let read = try? JSONValue(parsing: json)
    // The reader's own lenience: UTF-16/32 goes to JSONDecoder, a UTF-8 BOM is skipped.
    let first = bytes.first ?? 0x20
    let viaDecoder = first == 0 || first == 0xFE || first == 0xFF || (bytes.count > 1 && bytes[1] == 0)
    let bom = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
    if !viaDecoder, !bom, JSONSyntax.isValid(bytes) != (read != nil) {
        violated("syntax check says \(JSONSyntax.isValid(bytes)), reader says \(read != nil)")
    }
    return 0
}

@_cdecl("fuzz_script_json_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
