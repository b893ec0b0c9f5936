import FuzzSupport
import TrawlCore

/// `Query(parsing:)` on any text: never traps, and what it returns keeps the type's promises.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: FuzzInput(data, size).bytes, as: UTF8.self)
    let query = Query(parsing: text)
    if query.raw != text { violated("raw is not the text given") }
    if let command = query.command {
        if command.isEmpty { violated("empty command") }
        if command != command.lowercased() { violated("command not lower-cased: \(command)") }
    }
    for (key, value) in query.parameters {
        if key.isEmpty || value.isEmpty { violated("empty parameter key or value") }
        if key != key.lowercased() { violated("parameter key not lower-cased: \(key)") }
    }
    if query.url != nil, query.term.contains(" ") { violated("a URL term with a space") }
    if Query(parsing: text) != query { violated("parsing twice differs") }
    return 0
}

@_cdecl("fuzz_query_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
