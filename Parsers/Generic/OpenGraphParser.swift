package import TrawlCore

/// OpenGraph: `og:video` and `og:image` with their `:url`, `:secure_url`, `:type`, `:width`
/// and `:height`. A still `og:image` becomes the still of the first video.
///
/// As the OpenGraph protocol says, `og:video` starts a new object and the structured
/// properties after it describe that object; `og:video:url` is the same as `og:video`, and
/// `og:video:secure_url` is its https copy, preferred when present.
package struct OpenGraphParser: Parser {
    package let name = "opengraph"
    package let stage = ParserStage.generic

    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool { info.isHTMLDocument }

    struct Object {
        var hints: MediaHints
        var hasURL = true
        var secureURL: String?
        var resolved: MediaHints {
            var h = hints
            if let secureURL { h.url = secureURL }
            return h
        }
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        guard let document = payload.document else { return ResultSet() }
        var objects: [String: [Object]] = ["og:video": [], "og:image": []]
        for tag in document.metaTags {
            let root = tag.key.hasPrefix("og:video") ? "og:video" : tag.key.hasPrefix("og:image") ? "og:image" : nil
            guard let root else { continue }
            let property = tag.key.dropFirst(root.count)
            var list = objects[root]!
            switch property {
            case "":
                if let url = document.resolve(tag.value) { list.append(Object(hints: MediaHints(url: url))) }
            case ":url":
                guard let url = document.resolve(tag.value) else { break }
                if let last = list.indices.last, !list[last].hasURL {
                    list[last].hints.url = url
                    list[last].hasURL = true
                } else if list.last?.hints.url != url {
                    list.append(Object(hints: MediaHints(url: url)))
                }
            case ":secure_url":
                guard let url = document.resolve(tag.value) else { break }
                if list.isEmpty { list.append(Object(hints: MediaHints(url: url))) } else { list[list.count - 1].secureURL = url }
            case ":type":
                if list.isEmpty { list.append(Object(hints: MediaHints(url: ""), hasURL: false)) }
                list[list.count - 1].hints.mimeType = tag.value
            case ":width":
                if !list.isEmpty { list[list.count - 1].hints.width = Int(tag.value) }
            case ":height":
                if !list.isEmpty { list[list.count - 1].hints.height = Int(tag.value) }
            default:
                break
            }
            objects[root] = list
        }
        let videos = objects["og:video"]!.map(\.resolved).filter { !$0.url.isEmpty }
        let images = objects["og:image"]!.map(\.resolved).filter { !$0.url.isEmpty }
        let title = document.firstMeta("og:title") ?? document.title
        let still = images.first { !$0.isAnimatedMedia }?.url
        var collection = MediaCollection()
        for video in videos where video.isAnimatedMedia {
            collection.insert(video.media(parser: name, payload: payload, title: title, still: still))
        }
        for image in images where image.isAnimatedMedia && !Decorations.isDecoration(image.url, width: image.width, height: image.height) {
            if collection.count > 0 {
                // The page's video is the item; an animated og:image is the same item as a GIF.
                var media = collection.media[0]
                media.renditions.append(image.rendition())
                collection.insert(media)
            } else {
                collection.insert(image.media(parser: name, payload: payload, title: title))
            }
        }
        return ResultSet(media: collection.media)
    }
}
