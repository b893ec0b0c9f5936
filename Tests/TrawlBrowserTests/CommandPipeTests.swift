import Foundation
import Glibc
import Testing
import TrawlTesting

@testable import TrawlBrowser

extension BrowserTests {
    /// The command pipe once the browser is terminated: its descriptor number is free for the next
    /// socket or pipe this process opens (a database connection, a server's client), which must
    /// never receive a command meant for the browser.
    @Suite struct CommandPipeTests {
        @Test func aCommandAfterTerminateWritesNothingToTheDescriptorsNextOwner() async throws {
            try requireBrowser()
            var checked = false
            for _ in 0..<5 where !checked {
                let browser = try await Browser.launch(BrowserConfiguration())
                let number = browser.process.commandDescriptor
                #expect(number >= 0)
                browser.process.terminate()
                #expect(browser.process.commandDescriptor == -1)
                // A socket takes the freed number (unless another suite's socket got it first: then again).
                var pair: [Int32] = [-1, -1]
                try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
                defer { close(pair[0]); close(pair[1]) }
                let owner = pair[0] == number || pair[1] == number ? number : fcntl(pair[0], F_DUPFD, number)
                try #require(owner >= 0)
                defer { if owner != pair[0] && owner != pair[1] { close(owner) } }
                guard owner == number else { continue }
                checked = true
                // What is written to the number arrives at the other end of the pair.
                let peer = pair[1] == number ? pair[0] : pair[1]

                let command = Array(#"{"id":1,"method":"Browser.getVersion"}"#.utf8) + [0]
                #expect(!command.withUnsafeBytes { browser.process.writeCommand($0) })
                await #expect(throws: BrowserError.self) { _ = try await browser.connection.send("Browser.getVersion", timeout: .seconds(5)) }
                var buffer = [UInt8](repeating: 0, count: 256)
                let received = recv(peer, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                #expect(
                    received < 0 && errno == EAGAIN,
                    "the socket that got the number received \(String(decoding: buffer.prefix(max(0, received)).filter { $0 != 0 }, as: UTF8.self))")
            }
            #expect(checked, "the freed descriptor number was taken by another socket each time")
        }
    }
}
