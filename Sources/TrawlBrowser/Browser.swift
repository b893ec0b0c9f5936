import Foundation

/// One launched browser: its process and the DevTools connection to it.
final class Browser: Sendable {
    let process: ChromiumProcess
    let connection: CDPConnection
    /// From the spawn to the reply to the first command.
    let startupTime: Duration

    private init(process: ChromiumProcess, connection: CDPConnection, startupTime: Duration) {
        self.process = process
        self.connection = connection
        self.startupTime = startupTime
    }

    /// Spawns the browser and waits for its first reply (`Browser.getVersion`).
    static func launch(_ configuration: BrowserConfiguration) async throws -> Browser {
        let clock = ContinuousClock()
        let start = clock.now
        let process = try ChromiumProcess(configuration: configuration)
        let connection = CDPConnection(process: process)
        do {
            _ = try await connection.send("Browser.getVersion", timeout: configuration.commandTimeout)
        } catch {
            process.terminate()
            throw BrowserError.launchFailed("the browser did not answer its first command: \(error)")
        }
        return Browser(process: process, connection: connection, startupTime: clock.now - start)
    }
}
