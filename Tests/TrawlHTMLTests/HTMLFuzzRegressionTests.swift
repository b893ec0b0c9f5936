import Foundation
import Testing
import TrawlCore

@testable import TrawlHTML

/// Inputs the fuzz targets in Fuzz/ found, kept as they were found (bytes inline).
@Suite("Fuzz regressions: TrawlHTML")
struct HTMLFuzzRegressionTests {
    func syntaxAndReaderAgree(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let bytes = Array(text.utf8)
        let valid = bytes.withUnsafeBufferPointer(JSONSyntax.isValid)
        let read = (try? JSONValue(parsing: Data(bytes))) != nil
        #expect(valid == read, "\(text): syntax check \(valid), reader \(read)", sourceLocation: sourceLocation)
    }

    /// fuzz-script-json: the syntax check took `.` for a number (any run of digits, dots,
    /// signs and `e`), so a script's `x = [.....]` became a payload no reader can read. It
    /// now follows RFC 8259's number grammar and escapes, as the reader does.
    @Test func syntaxCheckReadsNumbersAndEscapesAsTheReaderDoes() {
        for text in [".", "[.]", "1.", "-", "01", "1e", "1e+", "+1", "1.2.3", "1-2", "--1", "[1e5e5]", #""\x""#, #""\u12G4""#, #""\u12""#] {
            syntaxAndReaderAgree(text)
            #expect(!Array(text.utf8).withUnsafeBufferPointer(JSONSyntax.isValid), "\(text)")
        }
        for text in ["0", "-0", "1.5e-3", "[10,2E+8,-0.0]", #""\u00e9\n\/\"""#, #"{"a":[1,{"b":null}]}"#] {
            syntaxAndReaderAgree(text)
            #expect(Array(text.utf8).withUnsafeBufferPointer(JSONSyntax.isValid), "\(text)")
        }
        let script = Array("window.a = [....., 1]; var b = {\"ok\": [1, 2, 3]};".utf8)
        let found = script.withUnsafeBufferPointer { ScriptJSONExtractor.extract(from: $0) }
        #expect(found.map { String(decoding: $0.json, as: UTF8.self) } == [#"{"ok": [1, 2, 3]}"#])
    }
}
