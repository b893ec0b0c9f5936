import Foundation
import Testing
import TrawlCore
import TrawlTesting

@testable import TrawlFetch

/// A body whose reader is slower than its server: the transfer waits for the reader (libcurl
/// stops reading the socket) instead of gathering the body in memory, and the wait is not held
/// against the transfer's time limits.
@Suite("A reader slower than its server", .timeLimit(.minutes(3)))
struct SlowReaderTests {
    /// 24 MiB in a pattern that shows a piece lost, repeated or out of order: several times
    /// what the loopback connection's buffers and the transfer's window hold together.
    static let body: Data = {
        var data = Data(capacity: 24 << 20)
        for mebibyte in 0..<24 {
            // A 251-byte cycle (prime: it never lines up with a piece), shifted in each MiB.
            let cycle = (0..<251).map { UInt8(truncatingIfNeeded: $0 + mebibyte * 7) }
            var block = Data(capacity: (1 << 20) + cycle.count)
            while block.count < 1 << 20 { block.append(contentsOf: cycle) }
            data.append(block.prefix(1 << 20))
        }
        return data
    }()

    let server: LoopbackServer

    /// 64 MiB of zeros, gzipped to a few dozen KiB.
    static let bomb = Gzip.compress(Data(count: 64 << 20))

    init() throws {
        // Made before the server answers: made inside its first answer, on a loaded machine,
        // they held the response back long enough to trip the low-speed limit.
        _ = (Self.body, Self.bomb)
        server = try LoopbackServer { request in
            request.path == "/bomb"
                ? .ok(headers: [("Content-Type", "text/html"), ("Content-Encoding", "gzip")], body: Self.bomb)
                : .ok(headers: [("Content-Type", "application/octet-stream")], body: Self.body)
        }
    }

    /// Reads the head and the first body piece, waits until the transfer has paused for its
    /// reader, and hands back the iterator and what was read so far.
    private func readFirstPiece(
        _ handler: HTTPSchemeHandler, path: String = "/big", configuration: LoaderConfiguration
    ) async throws -> (AsyncThrowingStream<FetchEvent, any Error>.AsyncIterator, Data) {
        var events = handler.load(FetchRequest(url: server.url(path)), configuration: configuration).makeAsyncIterator()
        guard case .head(let head)? = try await events.next() else {
            Issue.record("no head first")
            return (events, Data())
        }
        #expect(head.status == 200)
        guard case .body(let first)? = try await events.next() else {
            Issue.record("no body piece after the head")
            return (events, Data())
        }
        // Nothing more is read until the transfer says it waits: without the window it would
        // take the whole body off the connection and never pause.
        try await waitUntil("the transfer to pause for its reader") { handler.pausedTransfers == 1 }
        return (events, first)
    }

    private func readRest(_ events: inout AsyncThrowingStream<FetchEvent, any Error>.AsyncIterator, after first: Data) async throws -> Data {
        var body = first
        while let event = try await events.next() {
            guard case .body(let piece) = event else {
                Issue.record("a second head")
                continue
            }
            body.append(piece)
        }
        return body
    }

    @Test("The transfer pauses while its reader holds back, and resumes as it reads on: every byte, in order")
    func pausesAndResumes() async throws {
        let handler = HTTPSchemeHandler()
        var (events, first) = try await readFirstPiece(handler, configuration: LoaderConfiguration())
        let body = try await readRest(&events, after: first)
        #expect(body.count == Self.body.count)
        #expect(body == Self.body)
    }

    @Test("Time spent waiting for the reader counts against neither the time limit nor the low-speed limit")
    func waitingIsNotSlowness() async throws {
        let handler = HTTPSchemeHandler()
        let configuration = LoaderConfiguration(timeout: .seconds(4), lowSpeedTime: .seconds(2))
        var (events, first) = try await readFirstPiece(handler, configuration: configuration)
        // The reader dawdles past both limits while the transfer waits for it; libcurl's own
        // total timeout counted that time and failed the transfer.
        try await Task.sleep(for: .seconds(5))
        #expect(handler.pausedTransfers == 1)
        let body = try await readRest(&events, after: first)
        #expect(body == Self.body)
    }

    @Test("A reader that leaves a paused transfer ends it")
    func leavingEndsAPausedTransfer() async throws {
        let handler = HTTPSchemeHandler()
        do {
            let (events, _) = try await readFirstPiece(handler, configuration: LoaderConfiguration())
            _ = events
        }
        // The iterator is gone: the transfer is taken out of libcurl, paused or not.
        try await waitUntil("the abandoned transfer to end") { handler.pausedTransfers == 0 }
    }

    @Test("A gzip bomb read slowly still stops at the cap, whether its bytes come as it runs or as it resumes")
    func aBombReadSlowlyStopsAtTheCap() async throws {
        let handler = HTTPSchemeHandler()
        var (events, first) = try await readFirstPiece(handler, path: "/bomb", configuration: LoaderConfiguration(maxBodySize: 8 << 20))
        await #expect { _ = try await readRest(&events, after: first) } throws: { error in
            (error as? FetchError)?.code == .bodyTooLarge
        }
    }
}
