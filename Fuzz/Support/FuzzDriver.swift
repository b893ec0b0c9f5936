/// What libFuzzer calls with each input: the bytes, valid for the call only.
public typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: FuzzCallback
) -> CInt

/// Runs libFuzzer's driver (its command line: corpus folders, `-max_total_time=N`, …).
///
/// SwiftPM links an executable target with `main` pointing at `<module>_main`, so libFuzzer's
/// own `main` is not the one that runs; each target's `<module>_main` calls this instead.
public func runFuzzer(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ callback: FuzzCallback) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, callback)
}

/// Stops the run with a message libFuzzer reports as a crash, keeping the input.
public func violated(_ invariant: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("fuzz invariant violated: \(invariant)", file: file, line: line)
}
