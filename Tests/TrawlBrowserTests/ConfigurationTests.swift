import Testing
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
}
