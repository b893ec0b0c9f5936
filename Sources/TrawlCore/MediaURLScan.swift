import Glibc

/// A URL-shaped run of text that may name a media file, as written (escapes and all): what the
/// text fallback reads (see `MediaURLScan`).
public struct MediaURLCandidate: Sendable, Hashable {
    /// The bytes of the URL as the text has them.
    public var raw: String
    /// Where it starts in the text.
    public var offset: Int

    public init(raw: String, offset: Int) {
        self.raw = raw
        self.offset = offset
    }
}

/// Finds media-looking URLs in any text — HTML, JSON, JavaScript — escaped or not
/// (`https:\/\/…`, `\u0026`, `&quot;`, protocol-relative `//host/…`), at the byte level: a URL
/// counts when its path ends in an animated-media extension or its host serves only video.
/// The text fallback decides from there which of them are media.
///
/// Every URL form it reads has a slash pair (`://`, `:\/\/`, `//host`), so it jumps from slash
/// to slash with `memchr` and looks around each one. The text may come in pieces
/// (``feed(_:)``): the candidates are the ones a scan of the whole text finds, in the same order,
/// and only a few bytes around the piece boundary are held between pieces (the whole of a URL
/// still open at a boundary, unless it is too long to be one).
package struct MediaURLScan {
    /// Bytes not yet done with: the end of the text so far, from a little before where the
    /// slash search resumes.
    private var buffer: [UInt8] = []
    /// Where `buffer[0]` is in the text.
    private var bufferOffset = 0
    /// Where the slash search resumes in `buffer`.
    private var next = 0
    /// Inside a URL too long to be one: where its end search resumes in `buffer`.
    private var skipping: Int?
    private var seen = Set<String>()
    private var stopped = false
    /// At most this many candidates are kept (each raw text once).
    package let maxCandidates: Int
    package private(set) var candidates: [MediaURLCandidate] = []

    /// Bytes kept before a slash for the look-behind (`https:\/\/` is 7 bytes before it).
    static let lookBehind = 16
    /// An open URL is held across pieces up to this length; a longer one is skipped to its end
    /// (a URL of 4 KiB or more is never a candidate).
    static let maxHeldURL = 64 << 10

    package init(maxCandidates: Int = 20_000) {
        self.maxCandidates = maxCandidates
    }

    /// Scans the next piece of the text.
    package mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        guard !stopped else { return }
        buffer.append(contentsOf: bytes.bindMemory(to: UInt8.self))
        run(isFinal: false)
    }

    /// The text has ended.
    package mutating func finish() {
        if !stopped { run(isFinal: true) }
        buffer = []
        stopped = true
    }

    private mutating func run(isFinal: Bool) {
        var keep = 0
        var found: [MediaURLCandidate] = []
        var budget = maxCandidates - candidates.count
        let bufferOffset = self.bufferOffset
        var seen = self.seen
        var skipping = self.skipping
        var next = self.next
        var stop = false
        buffer.withUnsafeBufferPointer { text in
            let n = text.count
            if let j = skipping {
                switch Self.urlEnd(text, from: j, isFinal: isFinal) {
                case .needMore(let at):
                    keep = max(0, at - Self.lookBehind)
                    skipping = at - keep
                    next = 0
                    return
                case .end(let end):
                    skipping = nil
                    next = end
                }
            }
            let result = Self.scan(text, from: next, isFinal: isFinal) { start, end in
                let raw = String(decoding: UnsafeBufferPointer(rebasing: text[start..<end]), as: UTF8.self)
                guard seen.insert(raw).inserted else { return true }
                found.append(MediaURLCandidate(raw: raw, offset: bufferOffset + start))
                budget -= 1
                return budget > 0
            }
            switch result {
            case .end:
                keep = max(0, n - Self.lookBehind)
                next = n - keep
            case .stopped:
                stop = true
            case .needMore(let slash, let urlAt):
                if let urlAt, n - slash > Self.maxHeldURL {
                    keep = max(0, urlAt - Self.lookBehind)
                    skipping = urlAt - keep
                    next = 0
                } else {
                    keep = max(0, slash - Self.lookBehind)
                    next = slash - keep
                }
            }
        }
        candidates += found
        self.seen = seen
        self.skipping = skipping
        self.next = next
        if stop {
            stopped = true
            buffer = []
            return
        }
        self.bufferOffset += keep
        buffer.removeFirst(keep)
    }

    /// How a scan of part of the text ended.
    package enum Stop: Equatable {
        /// Every slash was read.
        case end
        /// The visitor asked to stop.
        case stopped
        /// The slash at `slash` cannot be read without bytes after the text's end; its URL's
        /// end search had come as far as `urlAt`.
        case needMore(slash: Int, urlAt: Int?)
    }

    /// Calls `visit(start, end)` for each candidate in `text` from `from`, in order, until it
    /// returns false. With `isFinal` false, stops where the bytes after `text` would be needed.
    package static func scan(_ text: UnsafeBufferPointer<UInt8>, from: Int = 0, isFinal: Bool = true, visit: (Int, Int) -> Bool) -> Stop {
        guard let base = text.baseAddress else { return .end }
        let n = text.count
        var i = from
        while i < n {
            guard let found = memchr(base + i, Int32(UInt8(ascii: "/")), n - i) else { break }
            let slash = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            if !isFinal, slash + 3 >= n { return .needMore(slash: slash, urlAt: nil) }
            i = slash + 1
            var start = -1
            var hostStart = -1
            var colon = -1
            if slash >= 1, slash + 1 < n, text[slash - 1] == UInt8(ascii: ":"), text[slash + 1] == UInt8(ascii: "/") {
                colon = slash - 1  // "://"
                hostStart = slash + 2
            } else if slash >= 2, slash + 2 < n, text[slash - 1] == UInt8(ascii: "\\"), text[slash - 2] == UInt8(ascii: ":"),
                text[slash + 1] == UInt8(ascii: "\\"), text[slash + 2] == UInt8(ascii: "/")
            {
                colon = slash - 2  // the JSON-escaped ":\/\/"
                hostStart = slash + 3
            } else if slash > 0, slash + 2 < n, text[slash + 1] == UInt8(ascii: "/"),
                text[slash - 1] == UInt8(ascii: "\"") || text[slash - 1] == UInt8(ascii: "'") || text[slash - 1] == UInt8(ascii: "(")
                    || text[slash - 1] == UInt8(ascii: "="),
                isHostByte(text[slash + 2])
            {
                start = slash  // protocol-relative "//host"
                hostStart = slash + 2
            }
            if colon >= 0 {
                var s = colon
                while s > 0, colon - s < 5, isLetter(text[s - 1]) { s -= 1 }
                guard isHTTPScheme(text, s..<colon) else { continue }
                start = s
            }
            guard start >= 0 else { continue }
            let end: Int
            switch urlEnd(text, from: hostStart, isFinal: isFinal) {
            case .end(let e): end = e
            case .needMore(let at): return .needMore(slash: slash, urlAt: at)
            }
            i = max(end, slash + 1)
            guard end - start < 4096, mayBeMedia(text, hostStart: hostStart, end: end) else { continue }
            if !visit(start, end) { return .stopped }
        }
        return .end
    }

    /// `http` or `https`, any case.
    static func isHTTPScheme(_ text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        matches(text, range, "http") || matches(text, range, "https")
    }

    package enum URLEnd: Equatable {
        case end(Int)
        /// The search reached the text's end at this byte and needs what follows.
        case needMore(Int)
    }

    /// The end of a URL that starts before `from`: the first byte no URL holds unescaped.
    /// Without `isFinal`, the last 6 bytes are never read (an escape may run past them).
    package static func urlEnd(_ text: UnsafeBufferPointer<UInt8>, from: Int, isFinal: Bool = true) -> URLEnd {
        var j = from
        let n = text.count
        while j < n {
            if !isFinal, j + 6 >= n { return .needMore(j) }
            let c = text[j]
            if c <= 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") || c == UInt8(ascii: "<") || c == UInt8(ascii: ">")
                || c == UInt8(ascii: "`") || c == UInt8(ascii: "{") || c == UInt8(ascii: "}") || c == UInt8(ascii: "|")
                || c == UInt8(ascii: "^")
            {
                return .end(j)
            }
            if c == UInt8(ascii: "\\") {
                // Keep JSON escapes that belong to the URL (\/ and \u0026); end at any other.
                if j + 1 < n, text[j + 1] == UInt8(ascii: "/") { j += 2; continue }
                if j + 5 < n, text[j + 1] == UInt8(ascii: "u"), text[j + 2] == UInt8(ascii: "0"), text[j + 3] == UInt8(ascii: "0") {
                    // \u0022 is a quote and \u003c a '<': both end the URL.
                    let a = text[j + 4], b = text[j + 5] | 0x20
                    if (a == UInt8(ascii: "2") && b == UInt8(ascii: "2")) || (a == UInt8(ascii: "3") && (b == UInt8(ascii: "c") || b == UInt8(ascii: "e"))) {
                        return .end(j)
                    }
                    j += 6
                    continue
                }
                return .end(j)
            }
            if c == UInt8(ascii: "&"), j + 5 < n, text[j + 1] == UInt8(ascii: "q"), text[j + 2] == UInt8(ascii: "u"),
                text[j + 3] == UInt8(ascii: "o"), text[j + 4] == UInt8(ascii: "t"), text[j + 5] == UInt8(ascii: ";")
            {
                return .end(j)
            }
            if c == UInt8(ascii: ")") || c == UInt8(ascii: "]") { return .end(j) }
            j += 1
        }
        return isFinal ? .end(n) : .needMore(n)
    }

    /// A byte-level pre-check that the URL may name a media file: its path ends in an
    /// animated-media extension or its host serves only video. Most URLs on a page are links
    /// and scripts; rejecting them here skips building, unescaping and normalising a String.
    package static func mayBeMedia(_ text: UnsafeBufferPointer<UInt8>, hostStart: Int, end: Int) -> Bool {
        var hostEnd = hostStart
        while hostEnd < end, text[hostEnd] != UInt8(ascii: "/"), text[hostEnd] != UInt8(ascii: "\\"),
            text[hostEnd] != UInt8(ascii: "?"), text[hostEnd] != UInt8(ascii: "#"), text[hostEnd] != UInt8(ascii: ":")
        {
            hostEnd += 1
        }
        if matches(text, hostStart..<hostEnd, "v.redd.it") || matches(text, hostStart..<hostEnd, "video.twimg.com") { return true }
        var pathEnd = hostEnd
        while pathEnd < end, text[pathEnd] != UInt8(ascii: "?"), text[pathEnd] != UInt8(ascii: "#") { pathEnd += 1 }
        // The fallback strips trailing punctuation before it reads the extension.
        while pathEnd > hostEnd, trailingPunctuation.contains(text[pathEnd - 1]) { pathEnd -= 1 }
        var dot = pathEnd
        while dot > hostEnd, text[dot - 1] != UInt8(ascii: "."), text[dot - 1] != UInt8(ascii: "/"), pathEnd - dot <= 5 { dot -= 1 }
        guard dot > hostEnd, text[dot - 1] == UInt8(ascii: ".") else { return false }
        return animatedExtensions.contains { matches(text, dot..<pathEnd, $0) }
    }

    private static let trailingPunctuation: [UInt8] = Array(".,;:!".utf8)
    private static let animatedExtensions: [StaticString] = ["gif", "gifv", "mp4", "m4v", "mov", "webm", "webp", "apng"]

    /// Whether `text[range]` equals the ASCII `word`, ignoring case.
    private static func matches(_ text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ word: StaticString) -> Bool {
        guard range.count == word.utf8CodeUnitCount else { return false }
        let w = word.utf8Start
        for k in 0..<range.count where text[range.lowerBound + k] | 0x20 != w[k] | 0x20 { return false }
        return true
    }

    static func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") }

    static func isHostByte(_ c: UInt8) -> Bool {
        isLetter(c) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
    }
}
