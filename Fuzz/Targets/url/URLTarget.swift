import FuzzSupport
import TrawlCore
import TrawlRecordings

/// URL normalisation: `CanonicalURL` (media dedupe and batch coalescing), the resolver of
/// references against a page's URL, the replay matcher's keys and redaction. The input is
/// `base\nreference`; the whole input is normalised too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size).bytes
    let text = String(decoding: input, as: UTF8.self)
    let newline = input.firstIndex(of: 0x0A) ?? input.count
    let base = String(decoding: UnsafeBufferPointer(rebasing: input[..<newline]), as: UTF8.self)
    let reference = String(decoding: UnsafeBufferPointer(rebasing: input[min(newline + 1, input.count)...]), as: UTF8.self)

    for raw in [text, base, reference] {
        let normalized = CanonicalURL.normalize(raw)
        let key = CanonicalURL.key(raw)
        if key != CanonicalURL.keyOfNormalized(normalized) { violated("key differs from the key of the normalised URL") }
        if key.hasPrefix("http://") { violated("a key keeps http: \(key)") }
        _ = Redaction.url(raw)
    }
    if let resolved = URLResolver.resolve(reference, base: base) {
        if resolved.isEmpty { violated("resolved to an empty URL") }
        if reference.trimmedWhitespace.hasPrefix("//"), !resolved.hasPrefix("https://") { violated("protocol-relative not made https: \(resolved)") }
        _ = CanonicalURL.normalize(resolved)
    }
    _ = URLResolver.resolve(reference, base: nil)

    let matcher = ReplayMatcher()
    for method in ["GET", "post"] {
        let exact = matcher.exactKey(method: method, url: base)
        let loose = matcher.looseKey(method: method, url: base)
        // Bytes, not characters: a combining mark after the space joins it in one character.
        let prefix = Array((method.uppercased() + " ").utf8)
        if !exact.utf8.starts(with: prefix) || !loose.utf8.starts(with: prefix) { violated("a key without its method") }
    }
    _ = matcher.closest(to: base, among: [reference, text])
    _ = Scrubber().scrubQuery(in: base)
    return 0
}

@_cdecl("fuzz_url_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
