import Foundation
import Testing

@testable import TrawlCore

/// Inputs the fuzz targets in Fuzz/ found, kept as they were found (bytes inline).
@Suite("Fuzz regressions: TrawlCore")
struct CoreFuzzRegressionTests {
    /// fuzz-url: base `\xFF\xFF` (no scheme), reference `.` resolved to "" — an empty string
    /// handed on as a URL. A base without a scheme now resolves nothing.
    @Test func referenceAgainstABaseWithoutAScheme() {
        let base = String(decoding: [0xFF, 0xFF] as [UInt8], as: UTF8.self)
        #expect(URLResolver.resolve(".", base: base) == nil)
        #expect(URLResolver.resolve("a.gif", base: "example.com/page") == nil)
        #expect(URLResolver.resolve("a.gif", base: "https://example.com/p/page") == "https://example.com/p/a.gif")
        #expect(URLResolver.resolve("//i.example/x.gif", base: nil) == "https://i.example/x.gif")
    }
}
