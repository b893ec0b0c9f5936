public import Foundation
import Synchronization
public import TrawlCore

/// Serves requests from recordings instead of the network.
///
/// Entries come from a HAR file or a folder of them (read recursively). A request is matched
/// by ``ReplayMatcher``; several entries for one request are served in recorded order, the last
/// one again after that. Redirects recorded as separate entries (what browsers write) are
/// followed, up to 10. A request with no entry fails with ``RecordingError/Code/noMatchingEntry``
/// naming it and the closest recorded URLs — unless a ``fallback`` transport was given, which
/// then serves it live. Without a fallback a replay has no way to reach the network.
public final class ReplayTransport: PayloadTransport {
    public let matcher: ReplayMatcher
    /// Where unmatched requests go; `nil` makes them errors.
    public let fallback: (any PayloadTransport)?
    /// The archives read, for messages.
    public let sources: [String]

    private let exact: [String: [HAREntry]]
    private let loose: [String: [HAREntry]]
    private let recordedURLs: [String]
    /// How many times each key has been served, for entries recorded more than once.
    private let served = Mutex<[String: Int]>([:])

    public init(entries: [HAREntry], sources: [String] = [], matcher: ReplayMatcher = ReplayMatcher(), fallback: (any PayloadTransport)? = nil) {
        self.matcher = matcher
        self.fallback = fallback
        self.sources = sources
        var exact: [String: [HAREntry]] = [:]
        var loose: [String: [HAREntry]] = [:]
        for entry in entries {
            exact[matcher.exactKey(method: entry.request.method, url: entry.request.url), default: []].append(entry)
            loose[matcher.looseKey(method: entry.request.method, url: entry.request.url), default: []].append(entry)
        }
        self.exact = exact
        self.loose = loose
        self.recordedURLs = entries.map(\.request.url)
    }

    /// Reads `path`: one `.har` file, or every `.har` under a folder.
    /// - Throws: ``RecordingError`` for an unreadable path or a file that is not HAR.
    public convenience init(path: URL, matcher: ReplayMatcher = ReplayMatcher(), fallback: (any PayloadTransport)? = nil) throws {
        let (entries, sources) = try Self.entries(at: path)
        self.init(entries: entries, sources: sources, matcher: matcher, fallback: fallback)
    }

    /// Every entry of the archives at `path` (see ``archives(at:)``), and the files they came from.
    public static func entries(at path: URL) throws -> (entries: [HAREntry], sources: [String]) {
        let files = try archives(at: path)
        var entries: [HAREntry] = []
        for file in files { entries += try HAR.read(from: file).log.entries }
        return (entries, files.map(\.path))
    }

    /// `path` itself if it is a file, else every `.har` below it, sorted.
    public static func archives(at path: URL) throws -> [URL] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) else {
            throw RecordingError(.unreadable, file: path.path, "no such file or folder")
        }
        guard isDirectory.boolValue else { return [path] }
        let walker = FileManager.default.enumerator(at: path, includingPropertiesForKeys: nil)
        var files: [URL] = []
        while let next = walker?.nextObject() as? URL {
            if next.pathExtension.lowercased() == "har" { files.append(next) }
        }
        return files.sorted { $0.path < $1.path }
    }

    public var entryCount: Int { recordedURLs.count }

    public func payloads(for request: FetchRequest, context: Request?) -> AsyncThrowingStream<Payload, any Error> {
        do {
            let payload = try payload(for: request)
            return AsyncThrowingStream { continuation in
                continuation.yield(payload)
                continuation.finish()
            }
        } catch let error as RecordingError where error.code == .noMatchingEntry && fallback != nil {
            return fallback!.payloads(for: request, context: context)
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
    }

    /// The recorded payload for `request`, following recorded redirects.
    public func payload(for request: FetchRequest) throws -> Payload {
        var url = request.url.absoluteString
        var method = request.method
        for _ in 0...10 {
            guard let entry = entry(method: method, url: url) else {
                throw RecordingError(
                    .noMatchingEntry, file: "\(request.method) \(Redaction.url(request.url.absoluteString))",
                    "no recorded entry in \(Self.naming(sources))"
                        + (url == request.url.absoluteString ? "" : " for the redirect to \(Redaction.url(url))"),
                    closest: matcher.closest(to: url, among: recordedURLs).map { Redaction.url($0) })
            }
            let status = entry.response.status
            if (300..<400).contains(status), status != 304, let target = redirectTarget(entry, from: url) {
                url = target
                if status == 303 { method = "GET" }
                continue
            }
            return try Self.payload(from: entry, requestURL: request.url, finalURL: entry.finalURL ?? url)
        }
        throw RecordingError(.noMatchingEntry, file: "\(request.method) \(Redaction.url(request.url.absoluteString))", "more than 10 recorded redirects")
    }

    /// The entry recorded for one request as it was (a redirect stays a redirect), taking its
    /// turn among entries recorded more than once; `nil` when there is none. For a replayer that
    /// follows redirects itself, as a browser does.
    public func recordedEntry(method: String, url: String) -> HAREntry? {
        entry(method: method, url: url)
    }

    private func entry(method: String, url: String) -> HAREntry? {
        let keys = [matcher.exactKey(method: method, url: url), "~" + matcher.looseKey(method: method, url: url)]
        for key in keys {
            let candidates = key.hasPrefix("~") ? loose[String(key.dropFirst())] : exact[key]
            guard let candidates, !candidates.isEmpty else { continue }
            let index = served.withLock { counts in
                let n = counts[key, default: 0]
                counts[key] = n + 1
                return min(n, candidates.count - 1)
            }
            return candidates[index]
        }
        return nil
    }

    private func redirectTarget(_ entry: HAREntry, from url: String) -> String? {
        let location =
            entry.response.redirectURL.isEmpty
            ? entry.response.headers.first { $0.name.lowercased() == "location" }?.value
            : entry.response.redirectURL
        guard let location, !location.isEmpty else { return nil }
        return URL(string: location, relativeTo: URL(string: url))?.absoluteURL.absoluteString
    }

    /// The payload an entry stands for.
    public static func payload(from entry: HAREntry, requestURL: URL, finalURL: String) throws -> Payload {
        guard let body = entry.response.content.body else {
            throw RecordingError(.badEntry, file: entry.request.url, "the response body is not valid base64")
        }
        var headers = HTTPHeaders(entry.response.headers.map { HTTPHeaders.Field(name: $0.name, value: $0.value) })
        // Bodies in a HAR are already decoded: the transfer headers no longer describe them.
        headers.remove(name: "Content-Encoding")
        headers.remove(name: "Content-Length")
        if headers["Content-Type"] == nil, !entry.response.content.mimeType.isEmpty {
            headers.add(name: "Content-Type", value: entry.response.content.mimeType)
        }
        let info = PayloadInfo(
            url: URL(string: finalURL) ?? requestURL, requestURL: requestURL, status: entry.response.status,
            headers: headers, origin: .document)
        return Payload(body: body, info: info)
    }
}

extension ReplayTransport {
    /// `a.har, b.har`, or `29 archives` when there are more than three.
    static func naming(_ sources: [String]) -> String {
        if sources.isEmpty { return "the replay" }
        if sources.count > 3 { return "\(sources.count) archives" }
        return sources.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")
    }
}
