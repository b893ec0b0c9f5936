import CCurl
import Foundation
import Testing

@testable import TrawlFetch

/// Every libcurl call's result is looked at: what libcurl refuses becomes an error naming the call.
@Suite("libcurl results checked")
struct CurlCheckTests {
    @Test func aRefusedOptionIsAnErrorNamingIt() throws {
        let easy = try #require(EasyHandle())
        #expect(throws: Never.self) { try easy.set(CURLOPT_PROTOCOLS_STR, "http,https") }
        do {
            try easy.set(CURLOPT_PROTOCOLS_STR, "http,no-such-protocol")
            Issue.record("libcurl took an unknown protocol")
        } catch let error as CurlCallError {
            #expect(error.call == "curl_easy_setopt(CURLOPT_PROTOCOLS_STR)", "\(error)")
            #expect(error.description.contains("failed"))
        }
        // A value libcurl range-checks.
        #expect(throws: CurlCallError.self) { try easy.set(CURLOPT_MAXREDIRS, -2) }
    }

    @Test func multiCallsAreChecked() throws {
        let multi = try #require(CurlMulti())
        let easy = try #require(EasyHandle())
        // Adding a handle twice is refused by name, not ignored.
        #expect(throws: CurlCallError.self) {
            try multi.add(easy)
            try multi.add(easy)  // already added
        }
        try multi.remove(easy)
        #expect(try multi.perform() == 0)
        try multi.poll(timeoutMS: 0)
        #expect(multi.wakeup())
    }

    @Test func codesNameTheCall() {
        #expect(throws: CurlCallError.self) { try CurlCheck.easy(CURLE_OUT_OF_MEMORY, "curl_easy_setopt(CURLOPT_URL)") }
        #expect(throws: Never.self) { try CurlCheck.easy(CURLE_OK, "x") }
        #expect(throws: CurlCallError.self) { try CurlCheck.multi(CURLM_INTERNAL_ERROR, "curl_multi_perform") }
        #expect(CurlCheck.setopt(CURLOPT_URL) == "curl_easy_setopt(CURLOPT_URL)")
    }
}
