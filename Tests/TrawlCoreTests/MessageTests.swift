import Foundation
import Testing

@testable import TrawlCore

/// Messages a person reads: no secrets.
@Suite("Messages")
struct MessageTests {
    @Test func redactionKeepsTheSentenceAroundAURL() {
        let line = "trawl: http://host/x?api_key=K&access_token=T: HTTP 404 from http://host/x?api_key=K&access_token=T."
        #expect(Redaction.text(line) == "trawl: http://host/x?api_key=REDACTED&access_token=REDACTED: HTTP 404 from http://host/x?api_key=REDACTED&access_token=REDACTED.")
        // Redacting twice changes nothing more (a line may pass through two redacting writers).
        #expect(Redaction.text(Redaction.text(line)) == Redaction.text(line))
        // A colon inside a value is the value's.
        #expect(Redaction.text("?token=a:b&x=1") == "?token=REDACTED&x=1")
    }
}
