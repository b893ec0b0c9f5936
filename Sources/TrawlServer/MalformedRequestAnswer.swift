import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request whose head HTTP cannot read — a URL or headers over the parser's 80 KiB,
/// bytes that are not HTTP — with the API's JSON error, then closes the connection.
///
/// The parser gives up before any route or middleware sees the request, so without this the
/// client got an empty `400` and no word of why. Only a failure between requests is answered
/// here (nothing of this connection's is being answered then); one in the middle of a request
/// is left to Hummingbird, whose answer is already under way.
final class MalformedRequestAnswer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Request heads read whose answers have not ended yet.
    private var unanswered = 0

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { unanswered += 1 }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { unanswered = max(0, unanswered - 1) }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError, unanswered == 0 else {
            context.fireErrorCaught(error)
            return
        }
        let answer = Self.answer(for: parseError)
        let body = answer.body()
        var fields: HTTPFields = [.contentType: "application/json; charset=utf-8", .connection: "close"]
        fields[.contentLength] = String(body.readableBytes)
        unanswered = 1
        context.write(wrapOutboundOut(.head(HTTPResponse(status: answer.status, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        // Closed once the answer is out (this runs on the channel's event loop, as handlers do).
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// The answer to a request HTTP cannot read: its head here, its body in the handler reading
    /// it (``ErrorStatus/apiError(for:)``).
    static func answer(for error: HTTPParserError) -> APIError {
        switch error {
        case .headerOverflow:
            APIError(
                .requestHeaderFieldsTooLarge, code: "request-head-too-large",
                message: "the request's URL and headers are over 80 KiB together; a URL may be at most 8192 bytes")
        default:
            // The parser's own words name its states, not the client's mistake.
            APIError(
                .badRequest, code: "malformed-request",
                message: "the request is not HTTP/1.1 this server can read (a broken request line, header, or chunked body)")
        }
    }
}

@available(*, unavailable)
extension MalformedRequestAnswer: Sendable {}
