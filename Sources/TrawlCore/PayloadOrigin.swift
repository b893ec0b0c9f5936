/// Where a payload came from.
public enum PayloadOrigin: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The document at the URL asked for.
    case document
    /// A JSON payload cut out of a document.
    case embedded(EmbeddedLocator)
    /// A second fetch the engine made because of the first (`oembed`, `api`).
    case followUp(reason: String)
    /// A response a browser caught while the page ran its scripts.
    case browserXHR
    /// The DOM a browser serialized after scripts ran.
    case domSnapshot

    /// Whether a browser produced the payload (an XHR it caught, or its DOM).
    public var isRendered: Bool {
        switch self {
        case .browserXHR, .domSnapshot: true
        default: false
        }
    }

    /// Whether the payload was cut out of a document (a state object, `__NEXT_DATA__`).
    public var isEmbedded: Bool {
        if case .embedded = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .document: "document"
        case .embedded(let locator): "embedded(\(locator))"
        case .followUp(let reason): "follow-up(\(reason))"
        case .browserXHR: "xhr"
        case .domSnapshot: "dom"
        }
    }
}

/// Where in a document an embedded payload was cut from.
public struct EmbeddedLocator: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, Codable {
        /// `<script type="application/json">`
        case jsonScript = "json-script"
        /// `<script type="application/ld+json">`
        case linkedData = "ld+json"
        /// `<script id="__NEXT_DATA__">`
        case nextData = "next-data"
        /// `window.X = {…}` in a script.
        case assignment
        /// `X = JSON.parse("…")` in a script.
        case jsonParse = "json-parse"
    }

    public var kind: Kind
    /// The script's index among the document's scripts.
    public var scriptIndex: Int
    /// The script's `id`, or the assigned name.
    public var name: String?

    public init(kind: Kind, scriptIndex: Int, name: String? = nil) {
        self.kind = kind
        self.scriptIndex = scriptIndex
        self.name = name
    }

    public var description: String {
        "\(kind.rawValue)#\(scriptIndex)\(name.map { ":\($0)" } ?? "")"
    }
}
