import Foundation
import FuzzSupport
import TrawlCore
import TrawlRecordings

/// Loading recordings: a HAR (decoding, replay indexing, serving every entry, scrubbing,
/// validating, writing it back) and a case file. What Trawl writes it must read back equal.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let json = Data(FuzzInput(data, size).bytes)
    _ = HARValidator.problems(in: json)
    _ = try? JSONDecoder().decode(RecordingCase.self, from: json)
    guard let har = try? HAR.decode(json) else { return 0 }

    let entries = Array(har.log.entries.prefix(32))
    let replay = ReplayTransport(entries: entries)
    let scrubber = Scrubber()
    for entry in entries {
        if let url = URL(string: entry.request.url) {
            _ = try? replay.payload(for: FetchRequest(url: url, method: entry.request.method))
            _ = try? ReplayTransport.payload(from: entry, requestURL: url, finalURL: entry.finalURL ?? entry.request.url)
        }
        _ = scrubber.scrub(entry)
    }
    guard let written = try? har.encoded() else { violated("a decoded archive does not encode") }
    guard let reread = try? HAR.decode(written) else { violated("an archive Trawl wrote does not decode") }
    if reread != har { violated("an archive read back differs from the one written") }
    return 0
}

@_cdecl("fuzz_har_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
