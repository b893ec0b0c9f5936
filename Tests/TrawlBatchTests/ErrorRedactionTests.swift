import Foundation
import Testing
import Trawl
import TrawlBatch
import TrawlEngines
import TrawlHTML
import TrawlParsers
import TrawlStore

/// No error shows a secret, whichever way it is printed: `description`, the CLI's sentence,
/// the JSON `error` object.
@Suite("Error redaction")
struct ErrorRedactionTests {
    static let secret = "SEKRET0123456789"
    static let url = "https://api.giphy.com/v1/gifs/search?q=cats&api_key=\(secret)&limit=25"
    static let credentials = "https://user:\(secret)@example.com/page"

    /// One of each public error type, every text field holding a URL with a secret.
    static func errors() -> [any Error] {
        [
            FetchError(.timedOut, url: url, message: "Operation timed out after 30000 ms for \(url)", curlCode: 28),
            FetchError(.connectionFailed, url: credentials, message: "could not connect to \(credentials)"),
            ParseError(parser: "giphy", url: url, reason: "no data object in \(url)"),
            SearchError(.invalidRequest, "Giphy answered 401 for \(url)"),
            RecordingError(.noMatchingEntry, file: "GET \(url)", "no recorded entry", closest: [url]),
            HTMLError(url: url, reason: "libxml2 gave up on \(url)"),
            WebError(url: url, status: 404),
            BatchError(.unreadableInput, "cannot read the URL list; first line \(url)"),
            StoreError(path: "/tmp/x.sqlite", message: "constraint failed for \(url)"),
            JSONReadError(offset: 3, reason: "unexpected '\(url)'"),
            CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: "/tmp/\(url)"]),
        ]
    }

    @Test func everyErrorTypeHasAStableCode() throws {
        for error in Self.errors() where !(error is CocoaError) {
            let coded = try #require(error as? any CodedError, "\(type(of: error)) has no code")
            #expect(!coded.errorCode.isEmpty && coded.errorCode == coded.errorCode.lowercased() && !coded.errorCode.contains(" "), "\(coded.errorCode)")
            #expect(ErrorSummary(error).code == coded.errorCode)
        }
    }

    @Test func noErrorTypeShowsASecret() throws {
        let encoder = JSONEncoder()
        for error in Self.errors() {
            let json = String(decoding: try encoder.encode(ErrorSummary(error)), as: UTF8.self)
            for (way, text) in [
                ("description", String(describing: error)), ("sentence", ErrorSentence.describe(error)),
                ("reason", ErrorSentence.reason(error)), ("json", json),
            ] where way != "description" || !(error is CocoaError) {  // Foundation's own description is never printed
                #expect(!text.contains(Self.secret), "\(type(of: error)) \(way): \(text)")
            }
            // The URL itself is still named, so the message says which request failed.
            #expect(
                ErrorSentence.describe(error).contains("REDACTED") || error is JSONReadError || error is StoreError || error is BatchError
                    || ErrorSentence.describe(error).contains("example.com") || ErrorSentence.describe(error).contains("giphy.com"))
        }
    }

    @Test(arguments: [
        ("GET https://x.example/a?key=abcdef&b=1 failed", "GET https://x.example/a?key=REDACTED&b=1 failed"),
        ("see https://x.example/a?q=1&TOKEN=abc#frag.", "see https://x.example/a?q=1&TOKEN=REDACTED#frag."),
        ("two: ?api_key=one ... &access_token=two'", "two: ?api_key=REDACTED ... &access_token=REDACTED'"),
        ("escaped &amp;key=abc&amp;q=x", "escaped &amp;key=REDACTED&amp;q=x"),
        ("https://me:pw@host.example/x and https://host.example/y", "https://REDACTED@host.example/x and https://host.example/y"),
        ("nothing to hide: a=b, monkey=banana", "nothing to hide: a=b, monkey=banana"),
        ("query ?keyboard=1&q=key", "query ?keyboard=1&q=key"),
    ])
    func redactsTextAnywhere(input: String, expected: String) {
        #expect(Redaction.text(input) == expected)
    }
}
