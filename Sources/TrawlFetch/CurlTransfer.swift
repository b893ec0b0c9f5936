import CCurl
import Foundation
import TrawlCore

/// What the caller hands the event loop: everything needed to start one transfer.
struct TransferSpec: Sendable {
    var request: FetchRequest
    var configuration: LoaderConfiguration
}

/// What a transfer does with body bytes libcurl offers it.
enum BodyReception {
    /// Taken (and handed on, now or at the end of the loop's turn).
    case taken
    /// Not taken: the reader is behind (``TransferWindow``); libcurl offers them again on resume.
    case paused
    /// Not taken, and the transfer ends (``CurlTransfer/abortReason`` says why).
    case stopped
}

/// One transfer in flight: its easy handle and the stream it feeds.
///
/// Created, used and dropped on the event loop's thread only; libcurl's callbacks reach it
/// through an unretained `Unmanaged` pointer while the loop's table keeps it alive.
final class CurlTransfer {
    let id: Int
    let easy: EasyHandle
    let url: String
    private let continuation: AsyncThrowingStream<FetchEvent, any Error>.Continuation
    private let maxBodySize: Int
    private var headerFields: [HTTPHeaders.Field] = []
    private var headSent = false
    private var received = 0
    private var responses = 0
    /// Body bytes not yet handed on: what libcurl delivers in one turn of the event loop (in
    /// 16 KiB calls) is handed on as one piece at the end of the turn (``flush()``), or sooner
    /// when it reaches ``pieceSize``.
    private var pending = Data()
    /// The largest body piece handed on at once.
    static let pieceSize = 256 << 10
    /// The final response's body length as delivered (``ResponseHead/bodyLength``), read once
    /// when its head is sent.
    private var declaredLength: Int?
    /// Why a callback stopped the transfer, if one did.
    private(set) var abortReason: FetchError?
    /// The bytes handed on that the reader has not taken: past its high-water mark the
    /// transfer pauses.
    let window: TransferWindow
    /// Time for the whole transfer. Enforced by the event loop (``timeLeft(_:)``), not by
    /// `CURLOPT_TIMEOUT_MS`: libcurl's clock runs on while a transfer is paused for its reader,
    /// and a slow reader is not a slow server.
    let timeLimit: Duration
    private var deadline: ContinuousClock.Instant
    /// Since when the transfer waits for its reader, if it does.
    private var pausedSince: ContinuousClock.Instant?
    /// Which addresses this transfer may connect to.
    let addressPolicy: AddressPolicy
    /// The last connection the address guard refused, unless one was allowed since: the
    /// transfer's error if libcurl then fails (it reports only "couldn't connect").
    var addressRefusal: FetchError?

    init(
        id: Int, easy: EasyHandle, spec: TransferSpec, window: TransferWindow,
        continuation: AsyncThrowingStream<FetchEvent, any Error>.Continuation
    ) {
        self.id = id
        self.easy = easy
        self.url = spec.request.url.absoluteString
        self.window = window
        timeLimit = spec.request.timeout ?? spec.configuration.timeout
        deadline = .now + timeLimit
        self.continuation = continuation
        self.maxBodySize = spec.configuration.maxBodySize
        self.addressPolicy = spec.configuration.addressPolicy
    }

    /// Applies the request and configuration to the easy handle.
    /// - Throws: ``CurlCallError`` naming the option libcurl refused.
    func configure(_ spec: TransferSpec, share: UnsafeMutableRawPointer?) throws {
        let config = spec.configuration
        let request = spec.request
        try easy.set(CURLOPT_URL, url)
        try easy.set(CURLOPT_NOSIGNAL, 1)
        try easy.set(CURLOPT_FOLLOWLOCATION, config.followsRedirects ? 1 : 0)
        try easy.set(CURLOPT_MAXREDIRS, config.maxRedirects)
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        // "" asks for every encoding this libcurl decodes (gzip, deflate, br, zstd here).
        try easy.set(CURLOPT_ACCEPT_ENCODING, "")
        try easy.set(CURLOPT_USERAGENT, config.userAgent)
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, config.connectTimeout.milliseconds)
        // No CURLOPT_TIMEOUT_MS: see `timeLimit`. The low-speed check stays libcurl's (it
        // skips a paused transfer).
        try easy.set(CURLOPT_LOW_SPEED_LIMIT, config.lowSpeedLimit)
        try easy.set(CURLOPT_LOW_SPEED_TIME, max(1, config.lowSpeedTime.milliseconds / 1000))
        // Refuses a declared Content-Length over the cap before any byte arrives.
        try easy.set(CURLOPT_MAXFILESIZE_LARGE, offset: Int64(config.maxBodySize))
        try easy.set(CURLOPT_HTTP_VERSION, config.http2 ? Int(CURL_HTTP_VERSION_2TLS) : Int(CURL_HTTP_VERSION_1_1))
        try easy.set(CURLOPT_SSL_VERIFYPEER, config.verifyTLS ? 1 : 0)
        try easy.set(CURLOPT_SSL_VERIFYHOST, config.verifyTLS ? 2 : 0)
        if config.cookies {
            try easy.set(CURLOPT_COOKIEFILE, "")
            if config.sharesCookies, let share { try easy.setShare(share) }
        }
        if !config.connectTo.isEmpty { try easy.setConnectTo(config.connectTo) }
        if config.addressPolicy.isGuarding { try installAddressGuard() }
        let lines = request.headers.map { "\($0.name): \($0.value)" }
        if !lines.isEmpty { try easy.setHeaders(lines) }
        switch request.method.uppercased() {
        case "GET": break
        case "HEAD": try easy.set(CURLOPT_NOBODY, 1)
        case "POST": try easy.set(CURLOPT_POST, 1)
        default: try easy.set(CURLOPT_CUSTOMREQUEST, request.method)
        }
        if let body = request.body {
            try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(body.count))
            try body.withUnsafeBytes { bytes in
                // COPYPOSTFIELDS copies, so the bytes need not outlive this call.
                try easy.set(CURLOPT_COPYPOSTFIELDS, pointer: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            }
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        try easy.set(CURLOPT_WRITEFUNCTION, callback: curlWriteCallback)
        try easy.set(CURLOPT_WRITEDATA, pointer: context)
        try easy.set(CURLOPT_HEADERFUNCTION, callback: curlHeaderCallback)
        try easy.set(CURLOPT_HEADERDATA, pointer: context)
    }

    /// A header line arrived. A status line starts a new response (after a redirect or a 100).
    fileprivate func receiveHeader(_ line: UnsafeBufferPointer<UInt8>) {
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        guard end > 0 else { return }
        let text = String(decoding: UnsafeBufferPointer(rebasing: line[0..<end]), as: UTF8.self)
        if text.hasPrefix("HTTP/") {
            headerFields.removeAll(keepingCapacity: true)
            responses += 1
            return
        }
        guard let colon = text.firstIndex(of: ":") else { return }
        // Not `trimmingCharacters(in:)`: its trip through NSString cost more than the rest of
        // reading a header (seen in a profile of `trawl batch`).
        let name = text[..<colon].trimmedWhitespace
        let value = text[text.index(after: colon)...].trimmedWhitespace
        headerFields.append(.init(name: name, value: value))
    }

    /// Body bytes arrived: taken, left for later while the reader catches up, or refused.
    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> BodyReception {
        sendHeadIfNeeded()
        if window.shouldPause() {
            if pausedSince == nil { pausedSince = .now }
            return .paused
        }
        received += bytes.count
        if received > maxBodySize {
            abortReason = FetchError(.bodyTooLarge, url: url, message: "body passed \(maxBodySize) bytes (after decompression)")
            return .stopped
        }
        if pending.isEmpty {
            // The declared length (when it is within the cap) sizes the last piece exactly.
            let expected = declaredLength.map { $0 - (received - bytes.count) } ?? Self.pieceSize
            pending.reserveCapacity(min(max(expected, bytes.count), Self.pieceSize))
        }
        pending.append(bytes.assumingMemoryBound(to: UInt8.self))
        if pending.count >= Self.pieceSize, !handOn() { return .stopped }
        return .taken
    }

    /// The reader caught up: the transfer receives again, its deadline moved on by the time it
    /// waited. libcurl may offer the bytes it held from inside this call.
    /// - Throws: ``CurlCallError`` when libcurl refuses to resume it.
    func resume() throws {
        if let pausedSince {
            deadline += .now - pausedSince
            self.pausedSince = nil
        }
        try easy.resume()
    }

    /// Time left before the deadline (none left: zero or less); `nil` while the transfer waits
    /// for its reader, whose time is not counted.
    func timeLeft(_ now: ContinuousClock.Instant) -> Duration? {
        pausedSince == nil ? deadline - now : nil
    }

    /// The error of a transfer that used its time.
    var timeoutError: FetchError {
        FetchError(
            .timedOut, url: url,
            message:
                "no complete response within \(timeLimit.milliseconds) ms (\(received) body bytes received; time spent waiting for the reader not counted)",
            curlCode: Int(CURLE_OPERATION_TIMEDOUT.rawValue))
    }

    /// The end of an event loop turn: what arrived in it goes on, so a reader sees a slow
    /// body's bytes as they come.
    func flush() {
        // A consumer that went away is noted in `abortReason`; its cancel command follows.
        _ = handOn()
    }

    /// Yields the gathered body bytes; false when the consumer is gone.
    private func handOn() -> Bool {
        guard !pending.isEmpty else { return true }
        let piece = pending
        pending = Data()
        window.handedOn(piece.count)
        if case .terminated = continuation.yield(.body(piece)) {
            abortReason = FetchError(.cancelled, url: url, message: "the consumer went away")
            return false
        }
        return true
    }

    private func sendHeadIfNeeded() {
        guard !headSent else { return }
        headSent = true
        let finalURL = easy.info(string: CURLINFO_EFFECTIVE_URL).flatMap(URL.init(string:)) ?? URL(string: url)!
        let head = ResponseHead(
            url: finalURL, status: easy.info(long: CURLINFO_RESPONSE_CODE), headers: HTTPHeaders(headerFields),
            redirects: easy.info(long: CURLINFO_REDIRECT_COUNT))
        declaredLength = head.bodyLength
        continuation.yield(.head(head))
    }

    /// libcurl is done with the transfer.
    func complete(_ code: CURLcode) {
        if let abortReason {
            continuation.finish(throwing: abortReason)
        } else if code != CURLE_OK, let addressRefusal {
            continuation.finish(throwing: addressRefusal)
        } else if code == CURLE_OK {
            sendHeadIfNeeded()
            _ = handOn()
            continuation.finish()
        } else {
            continuation.finish(throwing: FetchError(code: code, url: url, message: easy.message(for: code)))
        }
    }

    /// The loop dropped the transfer before libcurl finished it.
    func cancel(_ error: FetchError) {
        continuation.finish(throwing: error)
    }
}

@available(*, unavailable)
extension CurlTransfer: Sendable {}

private let curlWriteCallback: trawl_curl_data_callback = { pointer, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
    switch transfer.receiveBody(bytes) {
    case .taken: return length
    case .paused: return trawl_curl_writefunc_pause()
    case .stopped: return trawl_curl_writefunc_error()
    }
}

private let curlHeaderCallback: trawl_curl_data_callback = { pointer, size, count, context in
    guard let context, let pointer else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
        transfer.receiveHeader(UnsafeBufferPointer(start: $0, count: length))
    }
    return length
}

extension FetchError {
    /// Maps a libcurl result to a code.
    init(code: CURLcode, url: String, message: String) {
        let kind: Code
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL: kind = .unsupportedScheme
        case CURLE_URL_MALFORMAT: kind = .invalidURL
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: kind = .hostNotFound
        case CURLE_COULDNT_CONNECT: kind = .connectionFailed
        case CURLE_OPERATION_TIMEDOUT: kind = .timedOut
        case CURLE_TOO_MANY_REDIRECTS: kind = .tooManyRedirects
        case CURLE_FILESIZE_EXCEEDED: kind = .bodyTooLarge
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            kind = .connectionLost
        case CURLE_BAD_CONTENT_ENCODING: kind = .badContentEncoding
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            kind = .tls
        case CURLE_ABORTED_BY_CALLBACK: kind = .cancelled
        default: kind = .transferFailed
        }
        self.init(kind, url: url, message: message, curlCode: Int(code.rawValue))
    }
}
