package import Foundation
package import TrawlCore

/// Pinterest pins, from the state the pin's page embeds:
///
/// | URL | read from |
/// |---|---|
/// | `https://www.pinterest.com/pin/99360735500167749/` (also `uk.pinterest.com`, `pinterest.co.uk`, `pinterest.de`, …) | `<script id="__PWS_DATA__">` → `props.initialReduxState.pins[ID]`; `__PWS_INITIAL_PROPS__`; the Relay answers (`<script data-relay-response>` → `v3GetPinQuery.data`) |
/// | `https://pin.it/4ZbTXsd` | a redirect to the pin's page, followed by the fetch |
///
/// A pin URL with its id is first read as the pin resource the web app asks for
/// (`/resource/PinResource/get/?data={"options":{"field_set_key":"unauth_react_main_pin","id":"ID"}}`
/// → `resource_response.data`, the same pin object); when that fails, the page.
///
/// A pin is media when it is a GIF (`images.orig.url` a `.gif`, or an `embed` of type `gif`)
/// or a video (`videos.video_list`: `V_720P`, `V_EXP7`, `V_HLSV3_MOBILE`…, also in a story
/// pin's pages). A still pin (a JPEG `orig`) has none. Only the pin the URL names counts: the
/// page's "more like this" pins are others.
package struct PinterestSite: Site {
    package let name = "pinterest"
    package let hosts = [
        "pinterest.com", "pin.it", "pinterest.co.uk", "pinterest.ca", "pinterest.com.au", "pinterest.de", "pinterest.fr", "pinterest.es",
        "pinterest.it", "pinterest.jp", "pinterest.com.mx", "pinterest.nz", "pinterest.ch", "pinterest.at", "pinterest.ie",
        "pinterest.pt", "pinterest.se", "pinterest.dk", "pinterest.cl", "pinterest.co.kr", "pinterest.ru", "pinterest.ph",
    ]
    package var parsers: [any Parser] { [PinterestPinParser()] }
    package init() {}

    package func rewrite(_ url: URL) -> [URL] {
        guard url.host?.lowercased() != "pin.it", !url.path.hasPrefix("/resource/"), let id = Self.pinID(url) else { return [] }
        var components = URLComponents(string: "https://www.pinterest.com/resource/PinResource/get/")!
        components.queryItems = [URLQueryItem(name: "data", value: #"{"options":{"field_set_key":"unauth_react_main_pin","id":"\#(id)"}}"#)]
        return [components.url].compactMap { $0 }
    }

    /// The id in `/pin/ID/` (a number, or a slug ending in `--ID`).
    static func pinID(_ url: URL) -> String? {
        let parts = url.path.split(separator: "/").map(String.init)
        guard let index = parts.firstIndex(of: "pin"), index + 1 < parts.count else { return nil }
        let id = parts[index + 1].components(separatedBy: "--").last ?? ""
        return !id.isEmpty && id.allSatisfy(\.isASCIIDigit) ? id : nil
    }
}

/// The pin a Pinterest page names, from its embedded state.
package struct PinterestPinParser: Parser {
    package let name = "pinterest-pin"
    package let stage = ParserStage.site
    package init() {}

    package func canParse(_ info: PayloadInfo) -> Bool {
        guard info.isJSON, info.belongs(to: PinterestSite()) else { return false }
        if info.isFetched { return info.url.path.hasPrefix("/resource/PinResource/") }
        return info.origin.isEmbedded && (PinterestSite.pinID(info.url) ?? PinterestSite.pinID(info.requestURL)) != nil
    }

    package func parse(_ payload: Payload) throws -> ResultSet {
        let json = try payload.json(parser: name, what: "the page state")
        if payload.info.isFetched {
            guard let pin = json["resource_response"]?["data"], pin.object != nil else {
                throw ParseError(parser: name, url: payload.info.url.absoluteString, reason: "no resource_response.data pin")
            }
            var set = ResultSet(media: [Self.media(of: pin, parser: name, payload: payload)].compactMap { $0 })
            set.isDefinitive = true
            return set
        }
        guard let id = PinterestSite.pinID(payload.info.url) ?? PinterestSite.pinID(payload.info.requestURL) else { return ResultSet() }
        var pin: JSONValue?
        json.walk { value in
            guard pin == nil else { return }
            let valueID = value["id"]?.string ?? value["entityId"]?.string
            guard valueID == id,
                value["images"] != nil || value["videos"] != nil || value["imageSpec_orig"] != nil
                    || value["embed"] != nil || value["story_pin_data"] != nil
            else { return }
            pin = value
        }
        // The page's other blobs (its interface, its related pins) do not hold the pin.
        guard let pin else { return ResultSet() }
        var set = ResultSet(media: [Self.media(of: pin, parser: name, payload: payload)].compactMap { $0 })
        set.isDefinitive = true
        return set
    }

    static func media(of pin: JSONValue, parser: String, payload: Payload) -> Media? {
        var files = SiteMedia()
        let title = [pin["grid_title"], pin["title"], pin["gridTitle"], pin["description"]].lazy.compactMap { $0?.string }.first { !$0.isEmpty }
        files.title = title
        files.caption = pin["auto_alt_text"]?.string ?? pin["alt_text"]?.string
        var lists = [pin["videos"]?["video_list"], pin["videos"]?["videoList"]]
        for page in pin["story_pin_data"]?["pages"]?.array ?? [] {
            for block in page["blocks"]?.array ?? [] { lists.append(block["video"]?["video_list"]) }
        }
        for list in lists.compactMap({ $0?.object }) {
            for (name, variant) in list.sorted(by: { $0.key < $1.key }) {
                let url = variant["url"]?.string
                let type = url.map { $0.lowercased().contains(".m3u8") } == true ? "application/x-mpegurl" : "video/mp4"
                files.add(url, name: name, mimeType: type, width: variant["width"]?.number, height: variant["height"]?.number)
                files.addStill(variant["thumbnail"]?.string, width: variant["width"]?.number, height: variant["height"]?.number)
            }
        }
        // A GIF pin: its original is the `.gif` (the other sizes are still JPEGs of it).
        let original = pin["images"]?["orig"] ?? pin["imageSpec_orig"]
        if let url = original?["url"]?.string {
            if MediaKind(urlString: url) == .gif {
                files.add(url, name: "original", mimeType: "image/gif", width: original?["width"]?.number, height: original?["height"]?.number)
            } else {
                files.addStill(url, width: original?["width"]?.number, height: original?["height"]?.number)
            }
        }
        if let embed = pin["embed"], embed["type"]?.string?.lowercased() == "gif" {
            files.add(embed["src"]?.string, name: "embed", mimeType: "image/gif", width: embed["width"]?.number, height: embed["height"]?.number)
        }
        return files.media(parser: parser, payload: payload)
    }
}
