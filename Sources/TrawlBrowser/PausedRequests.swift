import TrawlCore

/// Which requests a tab's `Fetch` domain pauses: the patterns of its `Fetch.enable`.
///
/// Each pause is a round trip between Chromium's browser process and Trawl before the request may
/// go on. With an interceptor installed (a replay, a recording, the address guard) every request
/// must be seen, and with a recording every response too. Without one only the requests Trawl
/// acts on are paused: the blocked resource types (failed unsent, their URLs recorded) and
/// documents (a frame sent to a non-web scheme is refused). Everything else — scripts, XHR and
/// fetch, a worker's script — goes out without waiting for Trawl; the `Network` domain still
/// reports it for the settle rule and the payloads.
struct PausedRequests: Sendable, Hashable {
    /// Every request, whatever its type.
    var everything: Bool
    /// Every response too, before the page reads it.
    var responses: Bool
    /// The types paused when not ``everything``.
    var resourceTypes: Set<String>

    init(interceptors: [RequestInterceptor], configuration: BrowserConfiguration) {
        everything = !interceptors.isEmpty
        responses = interceptors.observesResponses
        resourceTypes = configuration.blockedResourceTypes.union(["Document"])
    }

    /// `Fetch.enable`'s parameters.
    var fetchParameters: [String: JSONValue] {
        var patterns: [JSONValue] = []
        if everything {
            patterns.append(.object(["urlPattern": .string("*"), "requestStage": .string("Request")]))
        } else {
            // Sorted: the same command for the same configuration.
            for type in resourceTypes.sorted() {
                patterns.append(.object(["urlPattern": .string("*"), "resourceType": .string(type), "requestStage": .string("Request")]))
            }
        }
        if responses { patterns.append(.object(["urlPattern": .string("*"), "requestStage": .string("Response")])) }
        return ["patterns": .array(patterns)]
    }
}
