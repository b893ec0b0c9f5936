import Foundation
import Testing
import TrawlBrowser
import TrawlCore

@Suite struct BrowserErrorTests {
    @Test func messagesRedactSecretsAndCodesAreStable() {
        let error = BrowserError(.scriptHung, url: "https://user:pw@site.test/p?api_key=SECRET&x=1", message: "no reply")
        #expect(error.errorCode == "script-hung")
        #expect(!error.description.contains("SECRET"))
        #expect(!error.description.contains("pw@"))
        #expect(error.description.hasPrefix("script hung: https://"))
        #expect(ErrorSummary(error).code == "script-hung")
        #expect(BrowserError(.crashed, message: "x").isRetryable)
        #expect(!BrowserError(.navigationFailed, message: "x").isRetryable)
    }

    @Test func aMissingBrowserFailsToLaunchSayingHowToInstallIt() async throws {
        let pool = BrowserPool(configuration: BrowserConfiguration(executablePath: "/nonexistent/chromium-headless-shell"))
        await #expect(throws: BrowserError.self) {
            do {
                _ = try await pool.render(FetchRequest(url: URL(string: "http://127.0.0.1:9/")!))
            } catch let error as BrowserError {
                #expect(error.code == .launchFailed)
                #expect(error.description.contains("make deps"))
                throw error
            }
        }
        #expect(await pool.launches == 0)
        #expect(await pool.openPageCount == 0)
    }
}
