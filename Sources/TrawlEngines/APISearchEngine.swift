import Foundation
package import TrawlCore
import TrawlParsers

/// What the Giphy and Tenor search engines share: a key from the configuration, one API request
/// per page, the site's API parser for the response, and the engine's own `next`.
struct APISearch {
    var engine: String
    var keyVariable: String
    var parser: any Parser

    /// The key, or a clear error naming the variable to set.
    func require(_ key: String?) throws -> String {
        guard let key, !key.isEmpty else {
            throw SearchError(.missingConfiguration, "!\(engine) needs an API key: set \(keyVariable)")
        }
        return key
    }

    /// The endpoint's parts; an endpoint that is not a URL (a bad configuration) is an error
    /// naming it, never a crash.
    func components(_ endpoint: String) throws -> URLComponents {
        guard let parts = URLComponents(string: endpoint), parts.scheme != nil, parts.host != nil else {
            throw SearchError(.invalidRequest, "!\(engine): the endpoint '\(endpoint)' is not a URL")
        }
        return parts
    }

    /// The request URL, or an error naming the endpoint.
    func url(_ parts: URLComponents) throws -> URL {
        guard let url = parts.url else {
            throw SearchError(.invalidRequest, "!\(engine): cannot build a request URL from '\(Redaction.url(parts.string ?? ""))'")
        }
        return url
    }

    /// Fetches `url` and yields its results; an HTTP error or an unreadable response is an error
    /// naming the engine and the URL (key redacted).
    func run(_ url: URL, environment: Environment, request: Request, continuation: Handler.Continuation) async throws {
        for try await var payload in environment.payloads(for: FetchRequest(url: url, headers: ["Accept": "application/json"]), from: request) {
            payload.info.origin = .followUp(reason: "\(engine) search")
            guard payload.info.isSuccess else {
                throw SearchError(.invalidRequest, "!\(engine): HTTP \(payload.info.status) from \(Redaction.url(url.absoluteString))")
            }
            if payload.info.contentType == nil || payload.info.contentType == "text/plain" {
                payload.info.contentType = "application/json"
            }
            var set = try parser.parse(payload)
            set.provenance = Provenance(parser: parser.name, origin: payload.info.origin, payloadURL: Redaction.url(url.absoluteString))
            if let limit = request.limit, set.media.count > limit { set.media = Array(set.media.prefix(limit)) }
            continuation.yield(set)
        }
    }
}

extension Query {
    /// `limit:N`, else the request's hint, else `fallback`, within 1…`maximum`.
    func pageSize(_ request: Request, fallback: Int, maximum: Int) -> Int {
        let asked = parameters["limit"].flatMap { Int($0) } ?? request.limit ?? fallback
        return min(max(asked, 1), maximum)
    }
}

/// `!giphy cats rating:g lang:en limit:25`: Giphy's v1 search (trending when the term is
/// empty), paged by offset. Key: `TRAWL_GIPHY_KEY`.
package struct GiphySearchEngine: Engine {
    package let name = "giphy"
    package var aliases: [String] { ["gif"] }
    package var apiKey: String?
    package var endpoint: String

    package init(apiKey: String? = nil, endpoint: String = "https://api.giphy.com/v1/gifs") {
        self.apiKey = apiKey
        self.endpoint = endpoint
    }

    package func handler(for request: Request) throws -> Handler {
        let search = APISearch(engine: name, keyVariable: "TRAWL_GIPHY_KEY", parser: GiphyAPIParser())
        let key = try search.require(apiKey)
        let query = request.query
        var parts = try search.components(endpoint + (query.term.isEmpty ? "/trending" : "/search"))
        var items = [URLQueryItem(name: "api_key", value: key)]
        if !query.term.isEmpty { items.append(URLQueryItem(name: "q", value: query.term)) }
        items.append(URLQueryItem(name: "limit", value: String(query.pageSize(request, fallback: 25, maximum: 50))))
        if case .offset(let offset) = request.pagination, offset > 0 { items.append(URLQueryItem(name: "offset", value: String(offset))) }
        if case .cursor(let cursor) = request.pagination {
            throw SearchError(.invalidRequest, "!giphy pages by offset; '\(cursor)' is a cursor")
        }
        for key in ["rating", "lang", "bundle"] { if let value = query.parameters[key] { items.append(URLQueryItem(name: key, value: value)) } }
        parts.queryItems = items
        let url = try search.url(parts)
        return Handler { environment, continuation in
            try await search.run(url, environment: environment, request: request, continuation: continuation)
        }
    }
}

/// `!tenor cats rating:g lang:en limit:20`: Tenor's v2 search (featured when the term is
/// empty), paged by its `pos` cursor. Key: `TRAWL_TENOR_KEY`. The default engine for plain text.
package struct TenorSearchEngine: Engine {
    package let name = "tenor"
    package var apiKey: String?
    package var endpoint: String
    package var clientKey: String

    package init(apiKey: String? = nil, endpoint: String = "https://tenor.googleapis.com/v2", clientKey: String = "trawl") {
        self.apiKey = apiKey
        self.endpoint = endpoint
        self.clientKey = clientKey
    }

    /// Giphy-style ratings in Tenor's content filter.
    static func contentFilter(_ rating: String) -> String? {
        switch rating.lowercased() {
        case "g": "high"
        case "pg": "medium"
        case "pg-13": "low"
        case "r": "off"
        case "high", "medium", "low", "off": rating.lowercased()
        default: nil
        }
    }

    package func handler(for request: Request) throws -> Handler {
        let search = APISearch(engine: name, keyVariable: "TRAWL_TENOR_KEY", parser: TenorAPIParser())
        let key = try search.require(apiKey)
        let query = request.query
        var parts = try search.components(endpoint + (query.term.isEmpty ? "/featured" : "/search"))
        var items = [URLQueryItem(name: "key", value: key), URLQueryItem(name: "client_key", value: clientKey)]
        if !query.term.isEmpty { items.append(URLQueryItem(name: "q", value: query.term)) }
        items.append(URLQueryItem(name: "limit", value: String(query.pageSize(request, fallback: 20, maximum: 50))))
        switch request.pagination {
        case .cursor(let position): items.append(URLQueryItem(name: "pos", value: position))
        case .offset(let offset) where offset > 0:
            throw SearchError(.invalidRequest, "!tenor pages by its cursor: pass the 'next' it printed, not an offset")
        default: break
        }
        if let rating = query.parameters["rating"] {
            guard let filter = Self.contentFilter(rating) else {
                throw SearchError(.invalidRequest, "!tenor rating:\(rating) is not one of g, pg, pg-13, r")
            }
            items.append(URLQueryItem(name: "contentfilter", value: filter))
        }
        if let lang = query.parameters["lang"] { items.append(URLQueryItem(name: "locale", value: lang)) }
        parts.queryItems = items
        let url = try search.url(parts)
        return Handler { environment, continuation in
            try await search.run(url, environment: environment, request: request, continuation: continuation)
        }
    }
}
