import TrawlCore

extension Payload {
    /// The body as JSON.
    /// - Throws: ``ParseError`` naming `parser`, the payload's URL and `what` was expected.
    func json(parser: String, what: String) throws -> JSONValue {
        do {
            return try JSONValue(parsing: body)
        } catch {
            throw ParseError(parser: parser, url: info.url.absoluteString, reason: "\(what) is not JSON (\(error))")
        }
    }
}
