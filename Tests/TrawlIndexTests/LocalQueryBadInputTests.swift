import Foundation
import Testing
import TrawlCore

@testable import TrawlIndex

/// `!local` queries users type that once failed: groups beside words, control characters.
@Suite("!local with bad or unusual queries")
struct LocalQueryBadInputTests {
    @Test("A group beside a word or group means both, as FTS5 needs it written")
    func groupsBesideWords() async throws {
        let index = try await sampleIndex()
        #expect(try LocalQuery(parsing: "!local cat (zebra OR dog)").match == #""cat" AND ( "zebra" OR "dog" )"#)
        #expect(
            try LocalQuery(parsing: "!local (cat OR dog) (typing OR letter) fast").match
                == #"( "cat" OR "dog" ) AND ( "typing" OR "letter" ) AND "fast""#)
        #expect(try await index.titles("!local cat (zebra OR dog)") == ["A cat and a dog"])
        #expect(Set(try await index.titles("!local (keyboard OR letter) typing")) == ["Cat typing on a keyboard", "Dog typing a letter"])
        #expect(try await index.titles("!local cat (zebra OR giraffe)").isEmpty)
    }

    @Test("A control character is an invalid query that names it, never SQL or a path", arguments: ["!local \u{0}cat", "!local cat\u{1}", "!local \u{7F}"])
    func controlCharacters(_ text: String) async throws {
        let index = try await sampleIndex()
        let error = try #require(throws: IndexError.self) { try LocalQuery(parsing: text) }
        #expect(error.code == .invalidQuery)
        #expect(error.message.contains("control character U+"), "\(error.message)")
        #expect(!error.message.unicodeScalars.contains { $0.properties.generalCategory == .control })
        // The engine refuses it the same way before touching the index.
        let engine = LocalEngine(index: index)
        let refused = try #require(throws: IndexError.self) { try engine.handler(for: Request(text)) }
        #expect(refused.code == .invalidQuery)
        #expect(!refused.description.contains(index.path) && !refused.description.contains("SELECT"))
    }
}
