public import Foundation
import Glibc
import Synchronization

/// An HTTP/1.1 server on 127.0.0.1 for tests: real sockets, one thread per connection, and
/// responses that may misbehave on purpose (see ``TestResponse``).
///
/// ```swift
/// let server = try LoopbackServer { request in
///     request.path == "/slow" ? .drip(chunks: [...], interval: .seconds(1)) : .html("<p>hi</p>")
/// }
/// defer { server.shutdown() }
/// let url = server.url("/slow")
/// ```
///
/// Every connection gets `Connection: close`, unless the server keeps connections alive
/// (`keepsAlive`, as a real web server does: a benchmark's stand-in for the internet), and then
/// only responses other than ``TestResponse/ok(status:headers:body:)`` end one. The server
/// binds to the loopback address only.
public final class LoopbackServer: Sendable {
    public typealias Handler = @Sendable (TestRequest) -> TestResponse

    /// The port the kernel gave.
    public let port: Int
    public let host: String
    private let listener: Int32
    private let handler: Handler
    private let keepsAlive: Bool
    private let state = Mutex(State())

    private struct State {
        var requests: [TestRequest] = []
        /// Tasks in ``waitForRequests(for:within:_:)``, resumed when a request makes their condition true.
        var waiters: [UUID: Waiter] = [:]
        var accepted = 0
        var stopped = false
        /// The listening socket is closed: its descriptor number may belong to anything now.
        var closed = false
    }

    /// Starts listening on `host` (a 127.x address) and an ephemeral port.
    /// - Parameter keepsAlive: serve further requests on a connection after an `.ok` response
    ///   (HTTP/1.1 persistent connections; requests are not pipelined by the clients here).
    public init(host: String = "127.0.0.1", keepsAlive: Bool = false, handler: @escaping Handler) throws {
        precondition(host.hasPrefix("127."), "tests bind to loopback only")
        self.host = host
        self.handler = handler
        self.keepsAlive = keepsAlive
        // Close-on-exec, as the accepted connections: a child a test starts (a database
        // server lives as long as the run) would otherwise hold the port and the connections open.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        inet_pton(AF_INET, host, &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 512) == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.listener = fd
        let thread = Thread { [self] in self.acceptLoop() }
        thread.name = "trawl.test-server"
        thread.start()
    }

    /// `http://127.0.0.1:PORT` + `path`.
    public func url(_ path: String = "/") -> URL {
        URL(string: "http://\(host):\(port)\(path.hasPrefix("/") ? path : "/" + path)")!
    }

    /// Requests seen so far, in arrival order.
    public var requests: [TestRequest] { state.withLock { $0.requests } }

    /// Connections accepted so far.
    public var connectionsAccepted: Int { state.withLock { $0.accepted } }

    private struct Waiter {
        let condition: @Sendable ([TestRequest]) -> Bool
        let continuation: CheckedContinuation<Void, any Error>
    }

    /// Waits until the requests served so far (``requests``) make `condition` true: checked now
    /// and again as each request arrives, not polled. Throws ``WaitTimedOut`` (naming `what` and
    /// how many requests came) if that has not happened within `limit` of real time, and
    /// `CancellationError` if the task is cancelled.
    public func waitForRequests(
        for what: String? = nil, within limit: Duration = .seconds(120), _ condition: @escaping @Sendable ([TestRequest]) -> Bool
    ) async throws {
        let id = UUID()
        // Ends the wait with `error` unless a request ended it first.
        let end: @Sendable (any Error) -> Void = { [self] error in
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(throwing: error)
        }
        let timer = Task {
            try await Task.sleep(for: limit)
            let seen = requests.count
            end(WaitTimedOut(limit: limit, what: "\(what ?? "the requests awaited") (the server saw \(seen))"))
        }
        defer { timer.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let met = state.withLock { state -> Bool? in
                    if condition(state.requests) { return true }
                    // Cancelled before it waited: the cancellation handler found nothing to end.
                    if Task.isCancelled { return nil }
                    state.waiters[id] = Waiter(condition: condition, continuation: continuation)
                    return false
                }
                switch met {
                case true?: continuation.resume()
                case nil: continuation.resume(throwing: CancellationError())
                case false?: break
                }
            }
        } onCancel: {
            end(CancellationError())
        }
    }

    /// Stops accepting; connections in progress finish on their own.
    public func shutdown() {
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            // Wakes the accept loop, which closes the socket itself: closing it here would free
            // the descriptor number while that thread may still call accept() on it, and a socket
            // opened meanwhile (another test's server) would be accepted from by this one. Under
            // the lock, and not once the loop has closed it: the number may be another socket's.
            if !state.closed { Glibc.shutdown(listener, Int32(SHUT_RDWR)) }
        }
    }

    deinit { shutdown() }

    private func acceptLoop() {
        defer {
            state.withLock { state in
                state.closed = true
                close(listener)
            }
        }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                let code = errno
                if state.withLock({ $0.stopped }) { return }
                switch code {
                case EINTR, ECONNABORTED, EPROTO:
                    continue  // that one connection is gone; the server goes on
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    usleep(10_000)  // out of descriptors or memory for a moment: try again
                    continue
                default:
                    return
                }
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)  // (Glibc here has no accept4)
            let stopped = state.withLock { state in
                state.accepted += 1
                return state.stopped
            }
            if stopped {
                close(client)
                return
            }
            let thread = Thread { [self] in self.serve(client) }
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        // How long a connection may wait for its next request. Long: a test that counts
        // reused connections must not see one closed because its client's tasks waited for a
        // thread (a full suite on two loaded cores has held them past 10 s).
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while respond(fd) {}
    }

    /// Reads one request and answers it; whether the connection serves another.
    private func respond(_ fd: Int32) -> Bool {
        guard let request = readRequest(fd) else { return false }
        let met = state.withLock { state in
            state.requests.append(request)
            let requests = state.requests
            let met = state.waiters.filter { $0.value.condition(requests) }
            for id in met.keys { state.waiters.removeValue(forKey: id) }
            return met.values
        }
        for waiter in met { waiter.continuation.resume() }
        let connection = Connection(fd: fd)
        switch handler(request) {
        case .ok(let status, let headers, let body):
            let keepAlive = keepsAlive && request.headers["connection"]?.lowercased() != "close"
            let head = Self.head(status: status, headers: headers + [("Content-Length", String(body.count))], keepAlive: keepAlive)
            let sent = connection.send(head) && (request.method == "HEAD" || connection.send(body))
            return sent && keepAlive
        case .drip(let headers, let chunks, let interval):
            guard connection.send(Self.head(status: 200, headers: headers)) else { return false }
            for chunk in chunks {
                Thread.sleep(forTimeInterval: Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18)
                guard connection.send(chunk) else { return false }
            }
        case .endless(let headers, let start, let filler):
            guard connection.send(Self.head(status: 200, headers: headers)), connection.send(start) else { return false }
            while connection.send(filler) {}
        case .truncated(let headers, let declaredLength, let body):
            _ = connection.send(Self.head(status: 200, headers: headers + [("Content-Length", String(declaredLength))]))
            _ = connection.send(body)
            // SO_LINGER with zero time turns close() into a reset.
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        case .raw(let bytes):
            _ = connection.send(bytes)
        case .hangUp:
            break
        }
        return false
    }

    private func readRequest(_ fd: Int32) -> TestRequest? {
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        let terminator: [UInt8] = [13, 10, 13, 10]
        while buffer.count < 64 << 10 {
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { return nil }
            buffer += chunk[0..<n]
            if let end = buffer.firstRange(of: terminator) {
                let text = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                var lines = text.components(separatedBy: "\r\n")
                let requestLine = lines.removeFirst().split(separator: " ")
                guard requestLine.count >= 2 else { return nil }
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                // Drain a request body we do not use, so the client is not reset mid-send.
                if let length = headers["content-length"].flatMap(Int.init) {
                    var remaining = length - (buffer.count - end.upperBound)
                    while remaining > 0 {
                        let n = recv(fd, &chunk, min(chunk.count, remaining), 0)
                        guard n > 0 else { break }
                        remaining -= n
                    }
                }
                return TestRequest(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers)
            }
        }
        return nil
    }

    static func head(status: Int, headers: [(String, String)], keepAlive: Bool = false) -> Data {
        var text = "HTTP/1.1 \(status) \(reason(status))\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += keepAlive ? "\r\n" : "Connection: close\r\n\r\n"
        return Data(text.utf8)
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

/// A connected socket that writes without raising SIGPIPE.
struct Connection {
    let fd: Int32

    /// Writes everything; false once the peer is gone.
    func send(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }
    }
}

extension LoopbackServer {
    /// A server that answers fixed responses by request target (`/path?query`), else by path,
    /// and 404 for anything else.
    public convenience init(host: String = "127.0.0.1", files: [String: TestResponse]) throws {
        try self.init(host: host) { request in files[request.target] ?? files[request.path] ?? .status(404) }
    }
}
