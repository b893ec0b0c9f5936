import Foundation
package import TrawlCore

/// A transport that answers from an ``HTTPCache`` when RFC 9111 allows, revalidates stale
/// entries with `If-None-Match` / `If-Modified-Since` (a 304 costs no body), and stores what
/// the network returns.
///
/// Each payload it returns says how it was served in `X-Trawl-Cache`: `hit`, `revalidated`,
/// `miss` or `bypass`.
///
/// Under a guarding ``AddressPolicy`` (the one `base` fetches under) the cache answers only
/// what the live path would be allowed to fetch: a URL whose host the policy refuses by itself
/// (an address, `localhost`) is refused before the cache is read, and a stored response is
/// served only if it was fetched under a policy refusing at least as much
/// (``CacheEntry/mayServe(under:)``) — a cache folder an unguarded run filled never answers a
/// guarded server with what sits behind the guard.
package struct CachingTransport: PayloadTransport {
    package static let statusHeader = "X-Trawl-Cache"

    let base: any PayloadTransport
    let cache: HTTPCache
    let policy: CachePolicy
    let addressPolicy: AddressPolicy
    let now: @Sendable () -> Double

    /// - Parameters:
    ///   - policy: used for requests that leave ``FetchRequest/cachePolicy`` at its default,
    ///     `useProtocolPolicy`.
    ///   - addressPolicy: the policy `base` fetches under; stored responses are served only
    ///     as it allows.
    package init(base: any PayloadTransport, cache: HTTPCache, policy: CachePolicy = .useProtocolPolicy, addressPolicy: AddressPolicy = .allowAll) {
        self.base = base
        self.cache = cache
        self.policy = policy
        self.addressPolicy = addressPolicy
        self.now = { Date().timeIntervalSince1970 }
    }

    package func payloads(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        AsyncThrowingStream(running: { continuation in
            continuation.yield(try await self.fetch(request, context: context))
        })
    }

    func fetch(_ request: FetchRequest, context: Request?) async throws -> Payload {
        let key = request.url.absoluteString
        guard request.method == "GET" else { return try await network(request, context: context, served: "bypass") }
        let policy = request.cachePolicy == .useProtocolPolicy ? self.policy : request.cachePolicy
        // What the live path refuses without a connection, the cache refuses too.
        if let host = request.url.host, addressPolicy.decision(forHost: host)?.isAllowed == false {
            throw FetchError.refused(host: host, url: key)
        }
        let stored = cache.entry(for: key).flatMap { $0.0.matches(requestHeaders: request.headers) && $0.0.mayServe(under: addressPolicy) ? $0 : nil }
        let now = self.now()
        if request.maxBodyBytes != nil || request.headers["range"] != nil {
            return try await partial(request, stored: stored, policy: policy, now: now, context: context)
        }
        switch policy {
        case .cacheOnly:
            guard let (entry, body) = stored else {
                let guarded = addressPolicy.isGuarding ? " fetched under this address policy" : ""
                throw FetchError(.cacheMiss, url: key, message: "no cached response\(guarded) (cache-only)")
            }
            return payload(entry, body: body, request: request, served: "hit")
        case .returnCacheElseLoad:
            if let (entry, body) = stored { return payload(entry, body: body, request: request, served: "hit") }
            return try await loadAndStore(request, context: context)
        case .reloadIgnoringCache:
            return try await loadAndStore(request, context: context)
        case .useProtocolPolicy:
            guard let (entry, body) = stored else { return try await loadAndStore(request, context: context) }
            if entry.isFresh(now: now) { return payload(entry, body: body, request: request, served: "hit") }
            guard entry.hasValidator else { return try await loadAndStore(request, context: context) }
            return try await revalidate(entry, body: body, request: request, context: context)
        }
    }

    /// A request for part of a body (a probe): a whole stored body serves it when the policy
    /// would serve it whole (the reader takes its first bytes); otherwise the network, and the
    /// answer is not stored.
    private func partial(
        _ request: FetchRequest, stored: (CacheEntry, Data)?, policy: CachePolicy, now: Double, context: Request?
    ) async throws -> Payload {
        if let (entry, body) = stored, entry.status == 200 {
            switch policy {
            case .cacheOnly, .returnCacheElseLoad: return payload(entry, body: body, request: request, served: "hit")
            case .useProtocolPolicy where entry.isFresh(now: now): return payload(entry, body: body, request: request, served: "hit")
            default: break
            }
        }
        if policy == .cacheOnly {
            throw FetchError(.cacheMiss, url: request.url.absoluteString, message: "no cached response (cache-only)")
        }
        return try await network(request, context: context, served: "bypass")
    }

    /// A conditional request: 304 refreshes the stored headers and serves the stored body.
    private func revalidate(_ entry: CacheEntry, body: Data, request: FetchRequest, context: Request?) async throws -> Payload {
        var conditional = request
        let headers = entry.responseHeaders
        if let etag = headers["etag"] { conditional.headers.replace(name: "If-None-Match", value: etag) }
        if let modified = headers["last-modified"] { conditional.headers.replace(name: "If-Modified-Since", value: modified) }
        let response = try await first(conditional, context: context)
        guard response.info.status == 304 else { return try store(response, request: request, served: "miss") }
        var refreshed = entry
        refreshed.refresh(with: response.info.headers, now: now())
        try? cache.store(refreshed, body: body)
        return payload(refreshed, body: body, request: request, served: "revalidated")
    }

    private func loadAndStore(_ request: FetchRequest, context: Request?) async throws -> Payload {
        try store(try await first(request, context: context), request: request, served: "miss")
    }

    private func store(_ response: Payload, request: FetchRequest, served: String) throws -> Payload {
        let headers = response.info.headers
        if CacheEntry.isStorable(status: response.info.status, headers: headers, request: request) {
            let names = headers.values(for: "vary").flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            var vary: [String: String] = [:]
            for name in names { vary[name] = request.headers[name] ?? "" }
            let entry = CacheEntry(
                url: request.url.absoluteString, finalURL: response.info.url.absoluteString, status: response.info.status,
                headers: headers.fields, storedAt: now(), varyValues: vary, guardedBy: CacheEntry.guardedBy(addressPolicy))
            // A cache that cannot write (full disk) must not fail the fetch.
            try? cache.store(entry, body: response.body)
        } else if CacheControl(headers["cache-control"]).noStore {
            cache.remove(request.url.absoluteString)
        }
        var marked = response
        marked.info.headers.replace(name: Self.statusHeader, value: served)
        return marked
    }

    private func network(_ request: FetchRequest, context: Request?, served: String) async throws -> Payload {
        var response = try await first(request, context: context)
        response.info.headers.replace(name: Self.statusHeader, value: served)
        return response
    }

    private func first(_ request: FetchRequest, context: Request?) async throws -> Payload {
        for try await payload in base.payloads(for: request, context: context) { return payload }
        throw FetchError(.transferFailed, url: request.url.absoluteString, message: "no response")
    }

    private func payload(_ entry: CacheEntry, body: Data, request: FetchRequest, served: String) -> Payload {
        var headers = entry.responseHeaders
        headers.replace(name: Self.statusHeader, value: served)
        let finalURL = URL(string: entry.finalURL) ?? request.url
        return Payload(body: body, info: PayloadInfo(url: finalURL, requestURL: request.url, status: entry.status, headers: headers, origin: .document))
    }
}
