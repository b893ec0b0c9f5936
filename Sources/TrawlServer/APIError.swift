import Foundation
public import Hummingbird
public import TrawlCore

/// An error as the API answers it: an HTTP status and `{"error":{"code","message"}}`.
///
/// The code is a stable `CodedError` code (`invalid-url`, `refused-address`, `http-404`) or
/// one of the server's own (`not-found`, `rate-limited`, `url-too-long`…); the message is one
/// sentence for a person (`ErrorSentence`: secrets redacted, never a stack trace).
public struct APIError: Error, Sendable, Hashable, CustomStringConvertible {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    /// Extra headers the answer carries (`Retry-After`, `WWW-Authenticate`).
    public var headers: HTTPFields

    public init(_ status: HTTPResponse.Status, code: String, message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public var description: String { "\(status.code) \(code): \(message)" }

    /// The JSON body.
    public var summary: ErrorSummary { ErrorSummary(code: code, message: message) }

    /// The body as bytes: `{"error":{"code":…,"message":…}}`.
    func body() -> ByteBuffer {
        ByteBuffer(bytes: JSONBody.encode(ErrorBody(error: summary)))
    }

    struct ErrorBody: Codable {
        var error: ErrorSummary
    }

    static func usage(_ code: String, _ message: String) -> APIError { APIError(.badRequest, code: code, message: message) }
}

extension APIError: HTTPResponseError {
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: body()))
    }
}
