public import Foundation
import TrawlCore

/// Makes a recording from a response saved by hand (a page saved from a browser, an API
/// response saved with curl): one entry at the URL it was served from.
public enum HARImporter {
    /// An entry serving `body` at `url` with status 200.
    /// - Parameter contentType: the served type; guessed from the file name, then the bytes.
    public static func entry(body: Data, url: String, contentType: String? = nil, fileName: String? = nil) -> HAREntry {
        let type = contentType ?? fileName.flatMap(guessType(fileName:)) ?? guessType(body: body)
        return HAREntry(
            request: HAREntry.Request(url: url),
            response: HAREntry.Response(
                status: 200, headers: [HAREntry.NameValue(name: "Content-Type", value: type)],
                content: HAREntry.Content(body: body, mimeType: type)),
            origin: .document)
    }

    /// A one-entry archive from a saved file, scrubbed like a live recording.
    /// - Throws: ``RecordingError`` when the file cannot be read.
    public static func har(file: URL, url: String, contentType: String? = nil, scrubber: Scrubber = Scrubber()) throws -> HAR {
        let body: Data
        do { body = try Data(contentsOf: file) } catch {
            throw RecordingError(.unreadable, file: file.path, ErrorSentence.reason(error), underlying: error)
        }
        let entry = scrubber.scrub(Self.entry(body: body, url: url, contentType: contentType, fileName: file.lastPathComponent))
        return HAR(log: HAR.Log(entries: [entry], comment: "imported from \(file.lastPathComponent)"))
    }

    static func guessType(fileName: String) -> String? {
        switch (fileName as NSString).pathExtension.lowercased() {
        case "html", "htm": "text/html; charset=utf-8"
        case "json": "application/json"
        case "xml": "application/xml"
        case "txt": "text/plain"
        case "gif": "image/gif"
        case "mp4": "video/mp4"
        default: nil
        }
    }

    static func guessType(body: Data) -> String {
        let head = body.prefix(64).drop { $0 <= 0x20 }
        switch head.first {
        case UInt8(ascii: "{"), UInt8(ascii: "["): return "application/json"
        case UInt8(ascii: "<"): return "text/html"
        default: return "application/octet-stream"
        }
    }
}
