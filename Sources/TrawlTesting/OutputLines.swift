public import Foundation

/// What a child process prints on a pipe, read as it comes on a thread of its own: a test
/// awaits the line by which the child says it reached a point (it is listening, it has written
/// enough) instead of sleeping until it probably has. Everything is read as it arrives, so a
/// chatty child never blocks on a full pipe.
///
/// ```swift
/// let output = Pipe()
/// process.standardOutput = output
/// try process.run()
/// let lines = OutputLines(output)
/// let first = try await lines.first(for: "the address it listens on") { $0.hasPrefix("http://") }
/// ```
public final class OutputLines: Sendable {
    /// The lines so far, and whether the child closed its end.
    public struct Seen: Sendable {
        public var lines: [String] = []
        /// The text after the last newline.
        public var partial = ""
        /// The pipe reached its end (the child exited or closed it).
        public var ended = false
    }

    private let seen = Watched(Seen())

    /// Starts reading `pipe` (its reading end) until its end.
    public convenience init(_ pipe: Pipe) { self.init(pipe.fileHandleForReading) }

    /// Starts reading `handle` until its end.
    public init(_ handle: FileHandle) {
        let thread = Thread { [seen] in
            while true {
                let chunk = handle.availableData
                seen.update { seen in
                    guard !chunk.isEmpty else {
                        seen.ended = true
                        return
                    }
                    var pieces = (seen.partial + String(decoding: chunk, as: UTF8.self)).split(separator: "\n", omittingEmptySubsequences: false)
                    seen.partial = String(pieces.removeLast())
                    seen.lines += pieces.map(String.init)
                }
                if chunk.isEmpty { return }
            }
        }
        thread.name = "trawl.test-output"
        thread.start()
    }

    /// The complete lines read so far.
    public var lines: [String] { seen.value.lines }

    /// Everything read so far.
    public var text: String {
        let seen = seen.value
        return seen.lines.map { $0 + "\n" }.joined() + seen.partial
    }

    /// Waits for the first line that meets `condition` and returns it.
    /// - Parameter what: what the line says, for the failure's message.
    /// - Throws: ``WaitTimedOut`` naming `what` after `limit`, or ``OutputEnded`` if the
    ///   child closed its output without printing it.
    public func first(
        for what: String, within limit: Duration = .seconds(120), where condition: @escaping @Sendable (String) -> Bool
    ) async throws -> String {
        let seen = try await seen.wait(for: "a line saying \(what)", within: limit) { $0.ended || $0.lines.contains(where: condition) }
        guard let line = seen.lines.first(where: condition) else {
            throw OutputEnded(what: what, text: seen.lines.suffix(20).joined(separator: "\n") + seen.partial)
        }
        return line
    }

    /// Waits until the child closes its output (it exited, as a rule) and returns all of it.
    public func end(within limit: Duration = .seconds(120)) async throws -> String {
        _ = try await seen.wait(for: "the end of the output", within: limit) { $0.ended }
        return text
    }
}

/// A child closed its output before printing the line a test waited for.
public struct OutputEnded: Error, CustomStringConvertible, Sendable {
    public var what: String
    /// The end of what it did print.
    public var text: String
    public var description: String { "the output ended without a line saying \(what); it ended with: \(text)" }
}
