package import TrawlCore

/// JSON-LD (`<script type="application/ld+json">`): `VideoObject`, `ImageObject` and other
/// media objects (`contentUrl`, `embedUrl` when it is a file, `thumbnailUrl` as the still,
/// `width`/`height` as numbers, strings or `QuantitativeValue`s, `name`), anywhere in the tree
/// (`@graph` included); and an animated `image` of any object (an article about one GIF).
package struct JSONLDParser: Parser {
    package let name = "json-ld"
    package let stage = ParserStage.generic

    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        if case .embedded(let locator) = info.origin { return locator.kind == .linkedData }
        return info.contentType == "application/ld+json"
    }

    static let mediaTypes: Set<String> = ["videoobject", "imageobject", "mediaobject", "clip", "movie", "3dmodel"]

    package func parse(_ payload: Payload) throws -> ResultSet {
        // Publishers, authors and brands carry logos and avatars, not what the page is about.
        let root = Self.pruned(try payload.json(parser: name, what: "ld+json"))
        let base = payload.info.url.absoluteString
        var collection = MediaCollection()
        root.walk { value in
            guard let object = value.object else { return }
            let types = Self.types(of: object)
            let title = object["name"]?.string ?? object["headline"]?.string
            if !types.isDisjoint(with: Self.mediaTypes) {
                let still = Self.urls(object["thumbnailUrl"] ?? object["thumbnail"]).first.flatMap { URLResolver.resolve($0, base: base) }
                let width = Self.dimension(object["width"]), height = Self.dimension(object["height"])
                var files = Self.urls(object["contentUrl"] ?? object["contentURL"])
                files += Self.urls(object["embedUrl"]).filter { MediaKind(urlString: $0)?.isAnimated == true }
                if types.contains("imageobject") { files += Self.urls(object["url"]) }
                let hints = files.compactMap { URLResolver.resolve($0, base: base) }
                    .map { MediaHints(url: $0, mimeType: object["encodingFormat"]?.string) }
                    .filter(\.isAnimatedMedia)
                if var primary = hints.first {
                    // The object's width and height are its content's; other files have their own.
                    (primary.width, primary.height) = (width, height)
                    var media = primary.media(parser: name, payload: payload, title: title, still: still)
                    media.renditions = hints.dropFirst().filter { $0.url != primary.url }.map { $0.rendition() }
                    collection.insert(media)
                }
            }
            for image in Self.urls(object["image"]).compactMap({ URLResolver.resolve($0, base: base) }) {
                let hints = MediaHints(url: image)
                if hints.isAnimatedMedia, !Decorations.isDecoration(image, width: nil, height: nil) {
                    collection.insert(hints.media(parser: name, payload: payload, title: title))
                }
            }
        }
        return ResultSet(media: collection.media)
    }

    static let organisationKeys: Set<String> = ["publisher", "author", "creator", "brand", "logo", "provider", "sourceOrganization"]

    static func pruned(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            return .object(object.filter { !organisationKeys.contains($0.key) }.mapValues(pruned))
        case .array(let array):
            return .array(array.map(pruned))
        default:
            return value
        }
    }

    static func types(of object: [String: JSONValue]) -> Set<String> {
        switch object["@type"] {
        case .string(let s)?: [s.lowercased()]
        case .array(let a)?: Set(a.compactMap { $0.string?.lowercased() })
        default: []
        }
    }

    /// URLs in a value that may be a string, an object with `url`/`contentUrl`, or an array of either.
    static func urls(_ value: JSONValue?) -> [String] {
        switch value {
        case .string(let s)?: [s]
        case .array(let a)?: a.flatMap { urls($0) }
        case .object(let o)?: urls(o["url"] ?? o["contentUrl"] ?? o["@id"])
        default: []
        }
    }

    /// `480`, `"480"`, `"480 px"` or `{"@type": "QuantitativeValue", "value": 480}`.
    static func dimension(_ value: JSONValue?) -> Int? {
        switch value {
        case .number(let n)?: Int(exactly: n.rounded())
        case .string(let s)?: Int(s.prefix { $0.isNumber })
        case .object(let o)?: dimension(o["value"])
        default: nil
        }
    }
}
