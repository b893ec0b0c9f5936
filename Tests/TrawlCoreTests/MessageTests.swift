import Foundation
import Testing

@testable import TrawlCore

/// Messages a person reads: no secrets, no Swift type names, counts that agree with their noun.
@Suite("Messages")
struct MessageTests {
    @Test func redactionKeepsTheSentenceAroundAURL() {
        let line = "trawl: http://host/x?api_key=K&access_token=T: HTTP 404 from http://host/x?api_key=K&access_token=T."
        #expect(
            Redaction.text(line)
                == "trawl: http://host/x?api_key=REDACTED&access_token=REDACTED: HTTP 404 from http://host/x?api_key=REDACTED&access_token=REDACTED.")
        // Redacting twice changes nothing more (a line may pass through two redacting writers).
        #expect(Redaction.text(Redaction.text(line)) == Redaction.text(line))
        // A colon inside a value is the value's.
        #expect(Redaction.text("?token=a:b&x=1") == "?token=REDACTED&x=1")
    }

    @Test func usageHintsKeepTheirPlaceholders() {
        let hint = "mysql://x: the queue must be a postgres://USER@HOST:PORT/DATABASE URL (postgres://USER[:PASSWORD]@HOST)"
        #expect(Redaction.text(hint) == hint)
        // Real credentials still go, a user name alone too (a token is often written there).
        #expect(Redaction.text("postgres://trawl:s3cret@db/q") == "postgres://REDACTED@db/q")
        #expect(Redaction.text("https://ghp_T0ken@github.com/x") == "https://REDACTED@github.com/x")
    }

    struct Shape: Decodable { var items: [String]; var count: Int; var name: String }

    @Test(arguments: [
        (#"{"items": {}, "count": 1, "name": "x"}"#, "a value at items is not a list"),
        (#"{"items": [], "count": "one", "name": "x"}"#, "a value at count is not a whole number"),
        (#"{"items": [], "count": 1, "name": 3}"#, "a value at name is not a string"),
        (#"{"items": [], "count": null, "name": "x"}"#, "a whole number is missing at count"),
    ])
    func decodingErrorsSpeakOfJSONNotSwift(json: String, sentence: String) throws {
        let error = try #require(throws: DecodingError.self) { try JSONDecoder().decode(Shape.self, from: Data(json.utf8)) }
        let described = ErrorSentence.describe(error)
        #expect(described == sentence, "\(described)")
        for swiftName in ["Array<", "Swift.", "Int", "String", "Dictionary<"] { #expect(!described.contains(swiftName), "\(described)") }
    }

    @Test func countsAgreeWithTheirNoun() {
        #expect(Counted(1, "result").description == "1 result")
        #expect(Counted(0, "result").description == "0 results")
        #expect(Counted(2, "entry", plural: "entries").description == "2 entries")
    }
}
