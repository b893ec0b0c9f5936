import Foundation
import Testing
import Trawl
import TrawlCore
import TrawlRecordings
import TrawlTesting

/// Signed URLs and callbacks as the services that issue them write them: their secrets go, by
/// the names' pattern, from error messages and from recordings alike; what is not a secret
/// stays readable.
@Suite("Redacting signed URLs", .timeLimit(.minutes(2)))
struct SignedURLRedactionTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// Path and query, as issued.
        var target: String
        /// Values that must not survive.
        var secrets: [String]
        /// Parameters that must stay as they are.
        var kept: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "AWS S3 presigned URL",
            target: "/trawl-bucket/cat.gif?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20240101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20240101T000000Z"
                + "&X-Amz-Expires=3600&X-Amz-Security-Token=IQoJb3JpZ2luX2VjEXAMPLEsessiontoken0123456789"
                + "&X-Amz-SignedHeaders=host&X-Amz-Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
            secrets: [
                "AKIAIOSFODNN7EXAMPLE", "IQoJb3JpZ2luX2VjEXAMPLEsessiontoken0123456789", "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
            ],
            kept: ["X-Amz-Algorithm=AWS4-HMAC-SHA256", "X-Amz-Date=20240101T000000Z", "X-Amz-Expires=3600", "X-Amz-SignedHeaders=host"]),
        Case(
            name: "Google Cloud Storage signed URL",
            target: "/trawl-bucket/cat.gif?X-Goog-Algorithm=GOOG4-RSA-SHA256"
                + "&X-Goog-Credential=trawl-signer%40trawl-project.iam.gserviceaccount.com%2F20240101%2Fauto%2Fstorage%2Fgoog4_request"
                + "&X-Goog-Date=20240101T000000Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host"
                + "&X-Goog-Signature=5a4c1b9e0f2d3c8a7b6e5d4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a29180",
            secrets: ["trawl-signer%40trawl-project.iam.gserviceaccount.com", "5a4c1b9e0f2d3c8a7b6e5d4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a29180"],
            kept: ["X-Goog-Algorithm=GOOG4-RSA-SHA256", "X-Goog-Expires=900"]),
        Case(
            name: "Azure SAS URL",
            target: "/gifs/cat.gif?sv=2022-11-02&ss=b&srt=o&sp=r&se=2024-01-01T00:00:00Z&spr=https"
                + "&sig=3%2BmZ0bG9uZ2Jhc2U2NHNpZ25hdHVyZXRoYXRpc3NlY3JldA%3D%3D",
            secrets: ["3%2BmZ0bG9uZ2Jhc2U2NHNpZ25hdHVyZXRoYXRpc3NlY3JldA%3D%3D"],
            kept: ["sv=2022-11-02", "sp=r", "spr=https"]),
        Case(
            name: "OAuth 1 signed request and callback",
            target: "/photos?file=vacation.jpg&oauth_consumer_key=dpf43f3p2l4k3l03&oauth_nonce=kllo9940pd9333jh"
                + "&oauth_signature=tR3%2BTy81lMeYAr%2FFid0kMTYa%2FWM%3D&oauth_signature_method=HMAC-SHA1&oauth_timestamp=1191242096"
                + "&oauth_token=nnch734d00sl2jdk&oauth_verifier=uw7NjWHT6OJ1MpJOXsHfNxoAhPKpgI8BlYDhxEjIBY&oauth_version=1.0",
            secrets: ["dpf43f3p2l4k3l03", "tR3%2BTy81lMeYAr%2FFid0kMTYa%2FWM%3D", "nnch734d00sl2jdk", "uw7NjWHT6OJ1MpJOXsHfNxoAhPKpgI8BlYDhxEjIBY"],
            kept: ["file=vacation.jpg", "oauth_timestamp=1191242096", "oauth_version=1.0"]),
        Case(
            name: "OAuth 2 callback",
            target: "/callback?code=SplxlOBeZQQYbYS6WxSbIA&state=af0ifjsldkj&refresh_token=tGzv3JOkF0XG5Qx2TlKWIA"
                + "&id_token=eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dGhpc2lzYXNpZ25hdHVyZQ&expires_in=3600",
            secrets: ["SplxlOBeZQQYbYS6WxSbIA", "tGzv3JOkF0XG5Qx2TlKWIA", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dGhpc2lzYXNpZ25hdHVyZQ"],
            kept: ["state=af0ifjsldkj", "expires_in=3600"]),
        Case(
            name: "access_token", target: "/feed/cats?access_token=EAAGm0PX4ZCpsBAKZB0ZD9xyzEXAMPLE&page=2",
            secrets: ["EAAGm0PX4ZCpsBAKZB0ZD9xyzEXAMPLE"], kept: ["page=2"]),
        Case(
            name: "api_key", target: "/v1/gifs/search?api_key=dc6zaTOxFJmzCexample&q=cats&limit=2",
            secrets: ["dc6zaTOxFJmzCexample"], kept: ["q=cats", "limit=2"]),
        Case(
            name: "private_token and secret", target: "/projects/cats?private_token=glpat-x9Yz8WvU7tS6rQ5pO4nM&secret=hunter2-but-longer&per_page=5",
            secrets: ["glpat-x9Yz8WvU7tS6rQ5pO4nM", "hunter2-but-longer"], kept: ["per_page=5"]),
        Case(
            name: "a bearer token under a harmless name", target: "/embed/cat?h=Bearer%20abcdef0123456789xyz&page=2",
            secrets: ["abcdef0123456789xyz"], kept: ["page=2"]),
        Case(
            name: "nothing secret", target: "/gallery/cats?page=2&sort=new&author=ann&keyword=dance", secrets: [],
            kept: ["page=2", "sort=new", "author=ann", "keyword=dance"]),
    ]

    /// As a message quotes it: an error's sentence, and the HTTP failure the loader reports.
    @Test(arguments: cases) func theMessageFormKeepsNoSecret(_ signed: Case) async throws {
        let server = try LoopbackServer { _ in .status(404) }
        defer { server.shutdown() }
        let url = "http://127.0.0.1:\(server.port)\(signed.target)"
        let sentence = Redaction.text("trawl: \(url): HTTP 403 from \(url).")
        var failure: String?
        do {
            for try await _ in SearchProvider(.init()).results(for: Request(url)) {}
        } catch {
            failure = ErrorSummary(error).message
        }
        let message = try #require(failure, "a 404 page is an error")
        for text in [sentence, message] {
            for secret in signed.secrets { #expect(!text.contains(secret), "\(secret) in \(text)") }
            for parameter in signed.kept { #expect(text.contains(parameter), "\(parameter) lost from \(text)") }
            if !signed.secrets.isEmpty { #expect(text.contains(Redaction.placeholder), "\(text)") }
        }
    }

    /// As `--record` writes it: the request, its query string, the final URL and the page's
    /// body (which quotes the URL) in a real recording of a loopback page.
    @Test(arguments: cases) func theRecordingKeepsNoSecret(_ signed: Case) async throws {
        let server = try LoopbackServer { request in
            .html("<html><head><meta property=\"og:image\" content=\"http://media.test\(request.target)\"></head><body></body></html>")
        }
        defer { server.shutdown() }
        let recorder = HARRecorder()
        let url = "http://127.0.0.1:\(server.port)\(signed.target)"
        for try await _ in SearchProvider(.init(recorder: recorder)).results(for: Request(url)) {}
        let har = await recorder.har(comment: "trawl resolve \(url)")
        let written = String(decoding: try har.encoded(), as: UTF8.self).replacingOccurrences(of: "\\/", with: "/")
        #expect(har.log.entries.count == 1)
        for secret in signed.secrets {
            #expect(!written.contains(secret), "\(secret) recorded")
            if let decoded = secret.removingPercentEncoding { #expect(!written.contains(decoded), "\(decoded) recorded") }
        }
        for parameter in signed.kept { #expect(written.contains(parameter), "\(parameter) lost from the recording") }
        // Replay still finds the page with the real secrets in the request.
        let matcher = ReplayMatcher()
        let recorded = try #require(har.log.entries.first?.request.url)
        #expect(matcher.looseKey(method: "GET", url: recorded) == matcher.looseKey(method: "GET", url: url))
    }

    @Test func namesAreJudgedByTheirWords() {
        for name in [
            "X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "X-Goog-Signature", "X-Goog-Credential", "sig", "refresh_token",
            "id_token", "oauth_signature", "private_token", "secret", "api_key", "apiKey", "APIKEY", "key", "access_token", "accessToken",
            "client_secret", "password", "passwd", "sessionid", "PHPSESSID", "Authorization", "X-Auth-Token", "x-api-key", "oauth_verifier", "code",
        ] {
            #expect(Redaction.isSecretName(name), "\(name)")
        }
        for name in [
            "page", "q", "limit", "author", "authority", "keyword", "keys", "monkey", "design", "signup", "X-Amz-SignedHeaders", "X-Amz-Date",
            "X-Goog-Expires", "sv", "se", "state", "expires_in", "Access-Control-Allow-Credentials", "Content-Type", "Keep-Alive",
        ] {
            #expect(!Redaction.isSecretName(name), "\(name)")
        }
        #expect(Redaction.text("Authorization: Bearer abc.def-ghi_jkl.mno was refused.") == "Authorization: Bearer REDACTED was refused.")
        #expect(Redaction.text("the bearer of bad news") == "the bearer of bad news")
    }
}
