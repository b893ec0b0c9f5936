import CZlib
public import Foundation

/// gzip for building test bodies (compressed pages, decompression bombs).
public enum Gzip {
    /// `data` gzip-compressed.
    public static func compress(_ data: Data) -> Data {
        data.withUnsafeBytes { raw in
            compress(chunks: [UnsafeRawBufferPointer(raw)])
        }
    }

    /// `count` zero bytes, gzip-compressed, without holding them in memory.
    public static func compressedZeros(count: Int) -> Data {
        let block = [UInt8](repeating: 0, count: 1 << 20)
        return block.withUnsafeBytes { raw in
            var chunks: [UnsafeRawBufferPointer] = []
            var remaining = count
            while remaining > 0 {
                let n = min(remaining, raw.count)
                chunks.append(UnsafeRawBufferPointer(rebasing: raw[0..<n]))
                remaining -= n
            }
            return compress(chunks: chunks)
        }
    }

    private static func compress(chunks: [UnsafeRawBufferPointer]) -> Data {
        var stream = z_stream()
        precondition(trawl_deflate_init_gzip(&stream, 9) == Z_OK)
        defer { deflateEnd(&stream) }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        func pump(_ flush: Int32) {
            repeat {
                buffer.withUnsafeMutableBytes { out in
                    stream.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.avail_out = uInt(out.count)
                    _ = deflate(&stream, flush)
                    output.append(out.baseAddress!.assumingMemoryBound(to: UInt8.self), count: out.count - Int(stream.avail_out))
                }
            } while stream.avail_out == 0
        }
        for chunk in chunks where chunk.count > 0 {
            stream.next_in = UnsafeMutablePointer(mutating: chunk.baseAddress!.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(chunk.count)
            pump(Z_NO_FLUSH)
        }
        pump(Z_FINISH)
        return output
    }
}
