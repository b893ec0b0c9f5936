import Foundation
import TrawlCore
import TrawlProbe

/// `--probe`: for each media of a result set (and each rendition, when asked), one ranged GET
/// for the first 64 KiB through the same transport as pages — the address guard, per-host
/// politeness, retries and the HTTP cache — read by `MediaSniffer` (TrawlProbe).
///
/// A media whose URL answers `404`/`410`, or answers with something that is not media at all (a
/// page where a GIF was promised), is marked dead and left out unless ``Options/keepDead``; a
/// claimed animation whose bytes prove a still is relabelled `MediaKind.still`. At most
/// ``Options/maxBytes`` of each answer are ever held: a server that ignores the range is read
/// up to that and the transfer ended.
public struct MediaProber: MediaChecker, MediaBytesReader {
    public struct Options: Sendable, Hashable {
        /// Probe every rendition too, not only the primary URL.
        public var renditions = false
        /// Keep dead media in the results (marked `probe.dead`).
        public var keepDead = false
        /// Bytes read of each answer (the range asked for).
        public var maxBytes = 64 << 10
        /// Probes in flight at once (per-host politeness still applies underneath).
        public var concurrency = 8

        public init() {}
    }

    let transport: any PayloadTransport
    let options: Options

    /// - Parameters:
    ///   - transport: what pages are fetched through (the guard, politeness, the cache).
    ///   - options: renditions, dead media, the byte cap, concurrency.
    public init(transport: any PayloadTransport, options: Options = .init()) {
        self.transport = transport
        self.options = options
    }

    /// Probes `set`'s media (and renditions, when asked) and hands it on with their facts.
    /// - Parameters:
    ///   - set: the result set as the page claims it.
    ///   - request: the request it answers (for recording and logs).
    /// - Returns: the set with each media's `probe`; dead ones left out unless kept.
    public func check(_ set: ResultSet, for request: Request) async -> ResultSet {
        guard !set.media.isEmpty else { return set }
        var urls: [String] = []
        for media in set.media {
            urls.append(media.url)
            if options.renditions { urls += media.renditions.map(\.url) }
        }
        let probes = await probe(Array(Set(urls)), context: request)
        var checked = set
        checked.media = set.media.compactMap { media in
            var media = media
            media.probe = probes[media.url]
            if options.renditions {
                media.renditions = media.renditions.map { rendition in
                    var rendition = rendition
                    rendition.probe = probes[rendition.url]
                    return rendition
                }
            }
            if let probe = media.probe {
                if probe.dead, !options.keepDead { return nil }
                if probe.animated == false, media.kind.isAnimated { media.kind = .still }
            }
            return media
        }
        return checked
    }

    /// Probes `urls`, at most ``Options/concurrency`` at once.
    func probe(_ urls: [String], context: Request?) async -> [String: MediaProbe] {
        await withTaskGroup(of: (String, MediaProbe).self) { group in
            var results: [String: MediaProbe] = [:]
            var pending = urls[...]
            for _ in 0..<min(options.concurrency, urls.count) {
                guard let url = pending.popFirst() else { break }
                group.addTask { (url, await probe(url, context: context)) }
            }
            for await (url, probe) in group {
                results[url] = probe
                if let next = pending.popFirst() { group.addTask { (next, await self.probe(next, context: context)) } }
            }
            return results
        }
    }

    /// One URL's probe: a ranged GET, its first bytes read.
    /// - Parameters:
    ///   - url: the media URL (http or https).
    ///   - context: the request it serves (for recording and logs).
    /// - Returns: what the URL answered; `status` 0 and `error` when nothing did.
    public func probe(_ url: String, context: Request?) async -> MediaProbe {
        guard let location = URL(string: url), let scheme = location.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return MediaProbe(status: 0, error: "unsupported-scheme")
        }
        var request = FetchRequest(url: location)
        request.headers.replace(name: "Range", value: "bytes=0-\(options.maxBytes - 1)")
        request.maxBodyBytes = options.maxBytes
        let payload: Payload
        do {
            guard let first = try await transport.payloads(for: request, context: context).first(where: { _ in true }) else {
                return MediaProbe(status: 0, error: "no-response")
            }
            payload = first
        } catch {
            return MediaProbe(status: 0, error: ErrorSummary(error).code)
        }
        return Self.probe(of: payload, maxBytes: options.maxBytes)
    }

    /// What an answer's first bytes say.
    static func probe(of payload: Payload, maxBytes: Int) -> MediaProbe {
        let info = payload.info
        let contentType = info.headers["content-type"]
        let bytes = Array(payload.body.prefix(maxBytes))
        let facts = MediaSniffer.read(bytes)
        var probe = MediaProbe(
            status: info.status, contentType: contentType, bytes: Self.totalBytes(info, read: payload.body.count, maxBytes: maxBytes),
            format: facts.format.rawValue, animated: facts.animated, frames: facts.frames, durationSeconds: facts.durationSeconds,
            width: facts.width, height: facts.height)
        let answered = (200..<300).contains(info.status)
        // Not media: bytes no reader knows that a page's type or its markup gives away (a server
        // may label a sign-in page `image/gif`), or nothing at all.
        let isPage = contentType.map { $0.lowercased().contains("html") || $0.lowercased().hasPrefix("text/") } ?? false
        let notMedia = facts.format == .unknown && (isPage || bytes.isEmpty || (Self.looksLikeMarkup(bytes) && !Self.isSVG(bytes, contentType)))
        probe.dead = info.status == 404 || info.status == 410 || (answered && notMedia)
        if !answered {
            probe.format = nil
            probe.animated = nil
            probe.frames = nil
        }
        return probe
    }

    /// Whether `bytes` open, after blanks and a UTF-8 byte order mark, with `<` (HTML, XML): a
    /// page, whatever its type says. (Playlists, the one markup media, have readers of their own.)
    static func looksLikeMarkup(_ bytes: [UInt8]) -> Bool {
        var rest = bytes[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        return rest.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "<")
    }

    /// An SVG image is markup too, and an image: not a page where media was promised.
    static func isSVG(_ bytes: [UInt8], _ contentType: String?) -> Bool {
        if contentType?.lowercased().contains("svg") == true { return true }
        let head = bytes.prefix(1024)
        let svg = Array("<svg".utf8)
        return head.count >= svg.count
            && (0...(head.count - svg.count)).contains { head[head.startIndex + $0..<head.startIndex + $0 + svg.count].elementsEqual(svg) }
    }

    /// The file's whole size: `Content-Range: bytes 0-65535/1843210`, else `Content-Length` of
    /// a whole answer, else what was read when that was less than the cap (all of it).
    static func totalBytes(_ info: PayloadInfo, read: Int, maxBytes: Int) -> Int? {
        if let range = info.headers["content-range"], let slash = range.lastIndex(of: "/") {
            return Int(range[range.index(after: slash)...].trimmingCharacters(in: .whitespaces))
        }
        guard info.status == 200 else { return nil }
        return info.headers["content-length"].flatMap { Int($0) } ?? (read < maxBytes ? read : nil)
    }
}
