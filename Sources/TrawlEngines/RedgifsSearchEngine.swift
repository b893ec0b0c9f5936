import Foundation
package import TrawlCore
import TrawlParsers

/// `!redgifs cats order:latest limit:40`: Redgifs' v2 search, paged by page number (the
/// `next` it prints). No key: the API hands out a temporary token (``SiteToken``), fetched once
/// per run and again when a search answers 401. `order:` is `trending` (the default), `latest`
/// or `top`.
package struct RedgifsSearchEngine: Engine {
    package let name = "redgifs"
    package var endpoint: String
    /// Tokens of this engine's run.
    let tokens = SiteTokens()

    package init(endpoint: String = RedgifsSite.api) {
        self.endpoint = endpoint
    }

    static let orders: Set<String> = ["trending", "latest", "top", "best", "new"]

    package func handler(for request: Request) throws -> Handler {
        let query = request.query
        guard !query.term.isEmpty else { throw SearchError(.invalidRequest, "!redgifs needs something to search for") }
        guard var parts = URLComponents(string: endpoint + "/gifs/search"), parts.scheme != nil, parts.host != nil,
            let tokenURL = URL(string: endpoint + "/auth/temporary")
        else {
            throw SearchError(.invalidRequest, "!redgifs: the endpoint '\(endpoint)' is not a URL")
        }
        let order = query.parameters["order"]?.lowercased() ?? "trending"
        guard Self.orders.contains(order) else {
            throw SearchError(.invalidRequest, "!redgifs order:\(order) is not one of \(Self.orders.sorted().joined(separator: ", "))")
        }
        var items = [
            URLQueryItem(name: "search_text", value: query.term), URLQueryItem(name: "order", value: order),
            URLQueryItem(name: "count", value: String(query.pageSize(request, fallback: 40, maximum: 80))),
        ]
        switch request.pagination {
        case .offset(let page) where page > 0: items.append(URLQueryItem(name: "page", value: String(page)))
        case .cursor(let cursor): throw SearchError(.invalidRequest, "!redgifs pages by number; '\(cursor)' is a cursor")
        default: break
        }
        parts.queryItems = items
        guard let url = parts.url else { throw SearchError(.invalidRequest, "!redgifs: cannot build a request URL") }
        let token = SiteToken(url: tokenURL)
        let tokens = self.tokens
        let parser = RedgifsAPIParser()
        return Handler { environment, continuation in
            for attempt in 0..<2 {
                let value: String
                do {
                    value = try await tokens.token(for: RedgifsSite().name) {
                        try await WebEngine.fetchToken(token, site: RedgifsSite().name, environment: environment, request: request)
                    }
                } catch let error as SiteTokenError {
                    throw SearchError(.invalidRequest, "!redgifs: no token: \(error)")
                }
                let asked = token.authorizing(FetchRequest(url: url, headers: ["Accept": "application/json"]), with: value)
                var expired = false
                for try await var payload in environment.payloads(for: asked, from: request) {
                    payload.info.origin = .followUp(reason: "redgifs search")
                    if payload.info.status == 401, attempt == 0 {
                        expired = true
                        break
                    }
                    guard payload.info.isSuccess else {
                        throw SearchError(.invalidRequest, "!redgifs: HTTP \(payload.info.status) from \(Redaction.url(url.absoluteString))")
                    }
                    if payload.info.contentType == nil || payload.info.contentType == "text/plain" { payload.info.contentType = "application/json" }
                    var set = try parser.parse(payload)
                    set.provenance = Provenance(parser: parser.name, origin: payload.info.origin, payloadURL: url.absoluteString)
                    if let limit = request.limit, set.media.count > limit { set.media = Array(set.media.prefix(limit)) }
                    continuation.yield(set)
                }
                guard expired else { return }
                await tokens.expire(value, of: RedgifsSite().name)
            }
        }
    }
}
