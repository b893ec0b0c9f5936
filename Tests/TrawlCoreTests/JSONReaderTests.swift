import Foundation
import Testing
import TrawlCore

@Suite("JSON reader")
struct JSONReaderTests {
    func read(_ text: String) throws -> JSONValue { try JSONValue(parsing: Data(text.utf8)) }

    @Test func readsEveryKind() throws {
        let value = try read(#" {"a": [1, -2.5, 3e2, 0, -0.0, 12345678901234567890], "b": {"c": null, "d": true, "e": false}, "s": "x"} "#)
        #expect(value["a"] == .array([.number(1), .number(-2.5), .number(300), .number(0), .number(-0.0), .number(Double("12345678901234567890")!)]))
        #expect(value[path: "b", "c"] == .null)
        #expect(value[path: "b", "d"]?.bool == true)
        #expect(value["s"]?.string == "x")
        #expect(try read("[]") == .array([]))
        #expect(try read("{}") == .object([:]))
        #expect(try read("\"top\"") == .string("top"))
        #expect(try read("42") == .number(42))
    }

    @Test func decodesEscapes() throws {
        #expect(try read(#""a\"b\\c\/d\n\t\r\b\f""#) == .string("a\"b\\c/d\n\t\r\u{8}\u{C}"))
        #expect(try read(#""https:\/\/x.example\/a?b=1\u0026c=2""#) == .string("https://x.example/a?b=1&c=2"))
        #expect(try read(#""\u00e9\u65E5\ud83d\ude00""#) == .string("é日😀"))
        // Lone surrogates are repaired, not fatal: pages send them.
        #expect(try read(#""a\ud83db""#) == .string("a\u{FFFD}b"))
        #expect(try read(#""\ude00""#) == .string("\u{FFFD}"))
        #expect(try read(#""\ud83d\ud83d\ude00""#) == .string("\u{FFFD}😀"))
        #expect(try read("\"café 日本\"") == .string("café 日本"))
    }

    @Test func acceptsAByteOrderMarkAndUTF16() throws {
        #expect(try JSONValue(parsing: Data([0xEF, 0xBB, 0xBF] + Array("[1]".utf8))) == .array([.number(1)]))
        let utf16 = try #require("{\"k\": \"v\"}".data(using: .utf16LittleEndian))
        #expect(try JSONValue(parsing: utf16)["k"] == .string("v"))
    }

    @Test func rejectsWhatIsNotJSON() {
        let bad = [
            "", "{", "[1,]", "{\"a\" 1}", "{a: 1}", "[1 2]", "01", "1.", "-", "1e", ".5", "tru", "nul", "\"abc", "\"a\u{1}b\"",
            #""\x41""#, #""\u12G4""#, "[1] x", "{\"a\":1,}", "'a'",
        ]
        for text in bad {
            #expect(throws: JSONReadError.self, "\(text.debugDescription)") { try read(text) }
        }
        #expect(throws: JSONReadError.self) { try read(String(repeating: "[", count: 600) + String(repeating: "]", count: 600)) }
        let error = try? #require(throws: JSONReadError.self) { try read("[1, 2, x]") }
        #expect(error?.offset == 7)
    }

    @Test func lastDuplicateKeyWins() throws {
        #expect(try read(#"{"a": 1, "a": 2}"#)["a"] == .number(2))
    }
}
