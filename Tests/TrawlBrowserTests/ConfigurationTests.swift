import Testing
import TrawlCore

@testable import TrawlBrowser

@Suite struct ConfigurationTests {
    @Test func connectToBecomesHostResolverRules() throws {
        let configuration = BrowserConfiguration(connectTo: ["example.com:443:127.0.0.1:8443", "::127.0.0.1:8080", "a.test::[::1]:80"])
        #expect(
            try configuration.hostResolverRules()
                == "MAP example.com:443 127.0.0.1:8443, MAP * 127.0.0.1:8080, MAP a.test [::1]:80, EXCLUDE localhost")
        #expect(try BrowserConfiguration().hostResolverRules() == nil)
    }

    @Test func malformedConnectToIsRefused() {
        #expect(throws: BrowserError.self) { try BrowserConfiguration(connectTo: ["example.com:443"]).hostResolverRules() }
        #expect(throws: BrowserError.self) { try BrowserConfiguration(connectTo: ["a:b:c:d"]).hostResolverRules() }
    }

    /// Without an interceptor a tab pauses only what Trawl acts on; with one, everything (and,
    /// for a recording, every response).
    @Test func fetchPausesOnlyWhatTrawlActsOn() {
        func patterns(_ paused: PausedRequests) -> [String] {
            (paused.fetchParameters["patterns"]?.array ?? []).map {
                ($0["resourceType"]?.string ?? "any") + "@" + ($0["requestStage"]?.string ?? "")
            }
        }
        let configuration = BrowserConfiguration(blockedResourceTypes: ["Image", "Font"])
        #expect(patterns(PausedRequests(interceptors: [], configuration: configuration)) == ["Document@Request", "Font@Request", "Image@Request"])
        let deny = RequestInterceptor(decide: { _ in .fail(.accessDenied) })
        #expect(patterns(PausedRequests(interceptors: [deny], configuration: configuration)) == ["any@Request"])
        let observing = RequestInterceptor(observe: { _, _ in })
        #expect(patterns(PausedRequests(interceptors: [observing], configuration: configuration)) == ["any@Request", "any@Response"])
    }
}
