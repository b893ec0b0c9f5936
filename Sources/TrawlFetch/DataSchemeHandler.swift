import Foundation
package import TrawlCore

/// `data:` URLs (RFC 2397): `data:[<media type>][;base64],<data>`.
package struct DataSchemeHandler: SchemeHandler {
    package let schemes = ["data"]

    package init() {}

    package func load(_ request: FetchRequest, configuration: LoaderConfiguration) -> AsyncThrowingStream<FetchEvent, any Error> {
        AsyncThrowingStream { continuation in
            do {
                let (type, body) = try Self.decode(request.url.absoluteString)
                guard body.count <= configuration.maxBodySize else {
                    throw FetchError(.bodyTooLarge, url: request.url.absoluteString, message: "body is \(body.count) bytes")
                }
                continuation.yield(.head(ResponseHead(url: request.url, status: 200, headers: ["Content-Type": type])))
                continuation.yield(.body(body))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }

    /// Splits a data URL into its media type and decoded bytes.
    /// - Throws: ``FetchError/Code/invalidURL`` when there is no comma or the base64 is bad.
    static func decode(_ url: String) throws -> (String, Data) {
        guard url.lowercased().hasPrefix("data:"), let comma = url.firstIndex(of: ",") else {
            throw FetchError(.invalidURL, url: url, message: "a data URL needs 'data:[type][;base64],data'")
        }
        let header = url[url.index(url.startIndex, offsetBy: 5)..<comma]
        let content = String(url[url.index(after: comma)...])
        var parameters = header.split(separator: ";").map(String.init)
        let isBase64 = parameters.last?.lowercased() == "base64"
        if isBase64 { parameters.removeLast() }
        var type = parameters.joined(separator: ";")
        if type.isEmpty || type.hasPrefix(";") { type = "text/plain;charset=US-ASCII" + type }
        if isBase64 {
            let cleaned = (content.removingPercentEncoding ?? content).filter { !$0.isWhitespace }
            let padded = cleaned + String(repeating: "=", count: (4 - cleaned.count % 4) % 4)
            guard let data = Data(base64Encoded: padded) else {
                throw FetchError(.invalidURL, url: url, message: "the base64 data does not decode")
            }
            return (type, data)
        }
        return (type, Data((content.removingPercentEncoding ?? content).utf8))
    }
}
