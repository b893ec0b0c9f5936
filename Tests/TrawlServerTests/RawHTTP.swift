import Foundation
import Glibc
import TrawlTesting

/// One HTTP/1.1 exchange over a plain loopback socket, bytes exactly as written: for requests
/// no HTTP client library would send (`//v1/resolve`, `%2F`, a forged `Host`).
///
/// The socket calls block, so they run on a thread of their own (``offPool(_:_:)``): blocking the
/// concurrency pool's few threads would starve the server under test, which answers on that
/// same pool.
struct RawHTTP: Sendable {
    let port: Int

    struct Answer: Sendable {
        var status: Int
        var headers: [(String, String)]
        var body: String

        func header(_ name: String) -> String? {
            headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
        }

        /// The `{"error":{"code"}}` of an error answer.
        var errorCode: String? {
            guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return nil }
            return (object["error"] as? [String: Any])?["code"] as? String
        }
    }

    /// Sends `method target` with `headers` (a `Host` and `Connection: close` are added unless
    /// given) and reads the answer to its end.
    func send(_ method: String, _ target: String, headers: [(String, String)] = [], body: String? = nil) async throws -> Answer {
        var lines = ["\(method) \(target) HTTP/1.1"]
        if !headers.contains(where: { $0.0.lowercased() == "host" }) { lines.append("Host: 127.0.0.1:\(port)") }
        lines.append("Connection: close")
        for (name, value) in headers { lines.append("\(name): \(value)") }
        if let body { lines.append("Content-Length: \(body.utf8.count)") }
        let request = lines.joined(separator: "\r\n") + "\r\n\r\n" + (body ?? "")
        let bytes = Array(request.utf8)
        return try await offPool("raw-http") { try Self.parse(try exchange(bytes)) }
    }

    /// How long a read waits for the server: a net under a hang, not a measure. A full suite on
    /// two loaded cores has kept a server's answer waiting past 10 s.
    static let receiveLimit = 60

    /// Writes `request`, reads until the server closes (``receiveLimit`` seconds at most).
    func exchange(_ request: [UInt8]) throws -> [UInt8] {
        let socket = try connect()
        defer { close(socket) }
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw RawHTTPError("send failed: errno \(errno)") }
            sent += count
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                answer += buffer[0..<count]
            } else if count == 0 || errno == ECONNRESET {
                return answer
            } else {
                throw RawHTTPError(
                    "no answer within \(Self.receiveLimit) s (errno \(errno)); read so far: \(String(decoding: answer, as: UTF8.self).prefix(200))")
            }
        }
    }

    /// A connected socket with a receive timeout of ``receiveLimit`` seconds.
    func connect() throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw RawHTTPError("socket failed") }
        var timeout = timeval(tv_sec: Self.receiveLimit, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw RawHTTPError("connect to 127.0.0.1:\(port) failed: errno \(errno)")
        }
        return socket
    }

    static func parse(_ bytes: [UInt8]) throws -> Answer {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { throw RawHTTPError("not an HTTP answer: \(text.prefix(200))") }
        let head = text[..<end.lowerBound].components(separatedBy: "\r\n")
        let statusLine = head[0].split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw RawHTTPError("no status line: \(head[0])") }
        let headers = head.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = String(text[end.upperBound...])
        if headers.contains(where: { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased().contains("chunked") }) {
            body = dechunked(body)
        }
        return Answer(status: status, headers: headers, body: body)
    }

    /// A chunked body's data (chunk sizes and trailers dropped).
    static func dechunked(_ text: String) -> String {
        var rest = Substring(text)
        var out = ""
        while let lineEnd = rest.range(of: "\r\n"), let size = Int(rest[..<lineEnd.lowerBound].split(separator: ";")[0], radix: 16), size > 0 {
            let start = lineEnd.upperBound
            let utf8 = rest.utf8
            guard let stop = utf8.index(start, offsetBy: size, limitedBy: utf8.endIndex) else { break }
            out += String(rest[start..<stop])
            rest = rest[stop...].dropFirst(2)
        }
        return out
    }
}

struct RawHTTPError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
