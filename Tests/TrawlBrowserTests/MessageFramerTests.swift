import Testing

@testable import TrawlBrowser

@Suite struct MessageFramerTests {
    private func split(_ chunks: [[UInt8]]) -> [String] {
        var framer = MessageFramer()
        var messages: [String] = []
        for chunk in chunks {
            chunk.withUnsafeBytes { raw in
                framer.append(raw) { messages.append(String(decoding: $0, as: UTF8.self)) }
            }
        }
        return messages
    }

    @Test func messagesSplitAtNULWhateverTheChunks() {
        let stream = Array(#"{"id":1}"#.utf8) + [0] + Array(#"{"method":"a"}"#.utf8) + [0] + Array("{}".utf8) + [0]
        let whole = split([stream])
        #expect(whole == [#"{"id":1}"#, #"{"method":"a"}"#, "{}"])
        for size in [1, 2, 3, 7] {
            let chunks = stride(from: 0, to: stream.count, by: size).map { Array(stream[$0..<min($0 + size, stream.count)]) }
            #expect(split(chunks) == whole)
        }
    }

    @Test func aLargeMessageInManyReadsKeepsOnlyItsTail() {
        var framer = MessageFramer()
        let big = [UInt8](repeating: UInt8(ascii: "x"), count: 3 << 20)
        var count = 0
        var length = 0
        for start in stride(from: 0, to: big.count, by: 256 << 10) {
            big[start..<min(start + (256 << 10), big.count)].withUnsafeBytes { framer.append($0) { _ in count += 1 } }
        }
        #expect(count == 0)
        #expect(framer.pendingCount == big.count)
        [0, UInt8(ascii: "y")].withUnsafeBytes {
            framer.append($0) {
                length = $0.count; count += 1
            }
        }
        #expect(count == 1)
        #expect(length == big.count)
        #expect(framer.pendingCount == 1)
    }
}
