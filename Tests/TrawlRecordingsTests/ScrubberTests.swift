import Foundation
import Testing
import TrawlCore
import TrawlRecordings

@Suite("Scrubbing secrets")
struct ScrubberTests {
    static let secrets = [
        "sk-live-4f9a8b7c6d5e", "Bearer-tok-0a1b2c3d4e5f", "sessioncookie-77aa88bb", "setcookie-99cc00dd",
        "giphykey-123456789", "tenorkey-abcdefghij", "bodytoken-5566778899", "passw0rd-secret", "custom-header-secret-1",
    ]

    /// Secrets planted in request headers, cookies, query strings (plain, entity-encoded,
    /// JSON-escaped), a redirect, and JSON bodies: none may survive into the written archive.
    @Test func noPlantedSecretSurvives() throws {
        let request = FetchRequest(
            url: URL(string: "https://api.giphy.com/v1/gifs/search?q=cats&api_key=giphykey-123456789&limit=2")!,
            headers: [
                "Authorization": "Bearer Bearer-tok-0a1b2c3d4e5f", "Cookie": "sid=sessioncookie-77aa88bb; theme=dark",
                "X-My-Secret": "custom-header-secret-1", "Accept": "application/json",
            ])
        let body = """
            {"data":[{"url":"https://tenor.googleapis.com/v2/search?q=cats\\u0026key=tenorkey-abcdefghij\\u0026pos=5"}],
             "next":"https://api.example/next?token=bodytoken-5566778899&x=1",
             "html":"<a href=\\"/p?api_key=giphykey-123456789&amp;key=tenorkey-abcdefghij\\">",
             "user":{"password": "passw0rd-secret", "api_key":"sk-live-4f9a8b7c6d5e"},
             "echo":"the key was sk-live-4f9a8b7c6d5e"}
            """
        let payload = Payload(
            body: Data(body.utf8),
            info: PayloadInfo(
                url: URL(string: "https://api.giphy.com/v1/gifs/search?q=cats&api_key=giphykey-123456789&limit=2")!,
                headers: [
                    "Content-Type": "application/json", "Set-Cookie": "sid=setcookie-99cc00dd; Path=/; HttpOnly",
                    "Location": "/again?token=bodytoken-5566778899",
                ]))
        let recorder = Scrubber(headers: ["X-My-Secret"])
        let entry = recorder.scrub(HAREntry(payload: payload, request: request))
        let written = String(decoding: try HAR(log: HAR.Log(entries: [entry])).encoded(), as: UTF8.self)
        for secret in Self.secrets {
            #expect(!written.contains(secret), "\(secret) survived scrubbing")
        }
        #expect(written.contains("Accept"))
        #expect(written.contains("q=cats"))
        #expect(written.contains("theme") == false, "the whole Cookie header is replaced")
        #expect(entry.request.url == "https://api.giphy.com/v1/gifs/search?q=cats&api_key=REDACTED&limit=2")
        #expect(entry.response.content.text?.contains(#"\u0026key=REDACTED\u0026pos=5"#) == true)
        #expect(entry.response.content.size == entry.response.content.text?.utf8.count)
    }

    @Test func theArchiveCommentIsScrubbedToo() async throws {
        let recorder = HARRecorder()
        let har = await recorder.har(comment: "trawl resolve https://api.example/x?key=abcdef123456&q=1")
        #expect(har.log.comment == "trawl resolve https://api.example/x?key=REDACTED&q=1")
    }

    @Test func replayMatchesAScrubbedRecordingWithTheRealKey() throws {
        let scrubbed = Scrubber().scrubQuery(in: "https://api.giphy.com/v1/gifs/search?api_key=abcdef123456&q=cats&offset=0")
        let matcher = ReplayMatcher()
        #expect(scrubbed.contains("api_key=REDACTED"))
        #expect(
            matcher.looseKey(method: "GET", url: scrubbed)
                == matcher.looseKey(method: "get", url: "https://API.giphy.com/v1/gifs/search?q=cats&offset=0&api_key=mine-000&cid=x&_=17"))
        #expect(
            matcher.looseKey(method: "GET", url: scrubbed)
                != matcher.looseKey(method: "GET", url: "https://api.giphy.com/v1/gifs/search?api_key=mine&q=cats&offset=25"))
    }
}
