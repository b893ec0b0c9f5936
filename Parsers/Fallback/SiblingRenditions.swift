package import TrawlCore

/// Finds the other formats of media a page is about: files named like a found media but with
/// another extension in the same folder, or sharing its ``UploadIdentity`` (`…/ID/giphy.mp4` → `…/ID/giphy.webp`,
/// `i.imgur.com/ID.gif` → `i.imgur.com/ID.mp4`). Sites list these formats in scripts that no
/// metadata parser reads.
package enum SiblingRenditions {
    /// `media` with renditions added from media URLs in `text`.
    package static func attach(to media: [Media], from text: UnsafeBufferPointer<UInt8>) -> [Media] {
        guard !media.isEmpty else { return media }
        return attach(to: media, urls: RegexFallbackParser.scan(text, limit: 2000))
    }

    /// `media` with renditions added from the document of `payload`: its text, or the
    /// media-looking URLs of a text it did not keep whole.
    package static func attach(to media: [Media], from payload: Payload) -> [Media] {
        guard !media.isEmpty else { return media }
        if let overflow = payload.overflow {
            return attach(to: media, urls: RegexFallbackParser.urls(in: overflow.candidates, limit: 2000))
        }
        return payload.body.withUnsafeBytes { attach(to: media, from: $0.bindMemory(to: UInt8.self)) }
    }

    /// `media` with renditions added from `urls`, media URLs in the order a page has them.
    private static func attach(to media: [Media], urls: [String]) -> [Media] {
        let merged = mergeByStem(media)
        var byStem: [String: [Int]] = [:]
        var byIdentity: [String: Int] = [:]
        for (index, item) in merged.enumerated() {
            for url in item.allURLs {
                byStem[stem(url), default: []].append(index)
                for token in UploadIdentity.tokens(of: url) where byIdentity[token] == nil { byIdentity[token] = index }
            }
        }
        var result = merged
        var known = Set(media.flatMap(\.allURLs).map(CanonicalURL.key))
        // The scan returns normalised URLs: their keys need no second decoding.
        for url in urls {
            let key = CanonicalURL.keyOfNormalized(url)
            guard known.insert(key).inserted else { continue }
            // Same name beside it, or another size of the same upload (`…/s1600/name.gif`
            // linked around the `…/s640/name.gif` the page shows).
            let owner = byStem[stem(key: key)]?.first ?? UploadIdentity.tokens(of: url).lazy.compactMap { byIdentity[$0] }.first
            guard let owner else { continue }
            result[owner].renditions.append(Rendition(url: url, kind: MediaKind(urlString: url) ?? .unknown))
        }
        return result
    }

    /// Media whose files share a stem are one media in several formats: the first found keeps
    /// its primary, the others become its renditions.
    package static func mergeByStem(_ media: [Media]) -> [Media] {
        var result: [Media] = []
        var ownerOfStem: [String: Int] = [:]
        for item in media {
            if let owner = item.allURLs.lazy.compactMap({ ownerOfStem[stem($0)] }).first {
                var known = Set(result[owner].allURLs.map(CanonicalURL.key))
                let files = [Rendition(url: item.url, kind: item.kind, width: item.width, height: item.height, byteSize: item.byteSize)] + item.renditions
                for file in files where known.insert(CanonicalURL.key(file.url)).inserted { result[owner].renditions.append(file) }
                result[owner].still = result[owner].still ?? item.still
                result[owner].title = result[owner].title ?? item.title
            } else {
                result.append(item)
                for url in item.allURLs { ownerOfStem[stem(url)] = result.count - 1 }
            }
        }
        return result
    }

    /// Scheme-less URL without query and extension: `media1.giphy.com/media/ID/giphy`.
    static func stem(_ url: String) -> String {
        stem(key: CanonicalURL.key(url))
    }

    /// ``stem(_:)`` of a ``CanonicalURL/key(_:)``.
    static func stem(key: String) -> String {
        var s = Substring(key)
        if let q = s.firstIndex(where: { $0 == "?" || $0 == "#" }) { s = s[..<q] }
        if let scheme = s.range(of: "://") { s = s[scheme.upperBound...] }
        if let slash = s.lastIndex(of: "/"), let dot = s[slash...].lastIndex(of: ".") { s = s[..<dot] }
        return String(s)
    }
}
