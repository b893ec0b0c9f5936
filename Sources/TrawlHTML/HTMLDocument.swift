import CLibXML2
public import Foundation

/// A parsed HTML tree for parsers that want XPath. Owns its `htmlDocPtr`.
///
/// Query results are copied out as ``HTMLNode`` values, so nothing borrowed from libxml2
/// outlives the document. Not thread-safe: keep a document on one task.
///
/// ```swift
/// let document = try HTMLDocument(parsing: data, url: "https://example.com/")
/// let sources = try document.select("//video/source/@src")
/// ```
public final class HTMLDocument {
    private let document: htmlDocPtr
    public let url: String

    /// - Parameters:
    ///   - data: the bytes.
    ///   - url: the document's URL (for messages and relative links).
    ///   - encoding: the bytes' charset; detected as the scanner does when `nil`.
    /// - Throws: ``HTMLError`` when libxml2 returns no document.
    public init(parsing data: Data, url: String, encoding: String? = nil) throws {
        LibXML2.prepareThread()
        let charset =
            encoding ?? data.withUnsafeBytes {
                Charset.detect($0.bindMemory(to: UInt8.self), declared: nil, isComplete: true)?.name
            } ?? "utf-8"
        let parsed: htmlDocPtr? = data.withUnsafeBytes { raw in
            raw.withMemoryRebound(to: CChar.self) { bytes in
                htmlReadMemory(bytes.baseAddress, Int32(clamping: bytes.count), url, charset, LibXML2.htmlOptions)
            }
        }
        guard let parsed else { throw HTMLError(url: url, reason: "libxml2 returned no document") }
        self.document = parsed
        self.url = url
    }

    deinit { xmlFreeDoc(document) }

    /// Nodes matching an XPath 1.0 expression, copied out.
    /// - Throws: ``HTMLError`` when the expression does not compile.
    public func select(_ xpath: String) throws -> [HTMLNode] {
        guard let context = xmlXPathNewContext(document) else { throw HTMLError(url: url, reason: "no XPath context") }
        defer { xmlXPathFreeContext(context) }
        guard let result = xmlXPathEvalExpression(xpath, context) else {
            throw HTMLError(url: url, reason: "invalid XPath '\(xpath)'")
        }
        defer { xmlXPathFreeObject(result) }
        guard let set = result.pointee.nodesetval, set.pointee.nodeNr > 0, let nodes = set.pointee.nodeTab else { return [] }
        return (0..<Int(set.pointee.nodeNr)).compactMap { nodes[$0].map(HTMLNode.init) }
    }

    /// The string value of an XPath expression (`string(//title)`, `count(//img)`).
    public func string(_ xpath: String) throws -> String {
        guard let context = xmlXPathNewContext(document) else { throw HTMLError(url: url, reason: "no XPath context") }
        defer { xmlXPathFreeContext(context) }
        guard let result = xmlXPathEvalExpression(xpath, context) else {
            throw HTMLError(url: url, reason: "invalid XPath '\(xpath)'")
        }
        defer { xmlXPathFreeObject(result) }
        guard let value = xmlXPathCastToString(result) else { return "" }
        defer { trawl_xml_free(value) }
        return String(cString: value)
    }
}

@available(*, unavailable)
extension HTMLDocument: Sendable {}

/// An element, attribute or text node, copied out of a document.
public struct HTMLNode: Sendable, Hashable {
    /// Element or attribute name; `text` for text nodes.
    public var name: String
    public var attributes: [String: String]
    /// The text content (for an attribute: its value).
    public var text: String

    init(_ node: xmlNodePtr) {
        name = node.pointee.name.map { String(cString: $0) } ?? ""
        var attributes: [String: String] = [:]
        if node.pointee.type == XML_ELEMENT_NODE {
            var attribute = node.pointee.properties
            while let current = attribute {
                if let key = current.pointee.name, let value = xmlGetProp(node, key) {
                    attributes[String(cString: key)] = String(cString: value)
                    trawl_xml_free(value)
                }
                attribute = current.pointee.next
            }
        }
        self.attributes = attributes
        if let content = xmlNodeGetContent(node) {
            text = String(cString: content)
            trawl_xml_free(content)
        } else {
            text = ""
        }
    }
}
