import ArgumentParser
import Foundation
import TrawlCore

/// What the user typed on the command line, made into query text: a local file path (or a
/// bare file name with a page's extension) becomes a `file:` URL; something that looks like a
/// URL or a file but is not one is a usage error naming it.
enum InputText {
    static func query(for input: String) throws -> String {
        let trimmed = input.trimmingCharacters(in: .whitespaces)
        // `./page.html`, `~/page.html`, and a bare `saved-page.html` or `pages/cat.htm`.
        if QueryLocation.isLocalPath(trimmed) || QueryLocation.isFileName(trimmed) {
            let path = NSString(string: trimmed).expandingTildeInPath
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw ValidationError("'\(input)': no such file")
            }
            guard !isFolder.boolValue else { throw ValidationError("'\(input)' is a folder, not a page") }
            return URL(fileURLWithPath: path).standardizedFileURL.absoluteString
        }
        let query = Query(parsing: trimmed)
        if query.command == nil, let problem = query.location.problem {
            throw ValidationError(problem)
        }
        if query.command == nil, let problem = notAnInput(trimmed) { throw ValidationError(problem) }
        return input
    }

    /// What makes `text` neither a page, a file nor a search, said to the person who typed it:
    /// a URL of a scheme no page is read from (`javascript:`, `mailto:`, `about:blank`,
    /// `view-source:…`), a Windows path, a lone `-`. Read as a search, each would have gone to
    /// the default engine.
    static func notAnInput(_ text: String) -> String? {
        if text == "-" { return "'-': resolve reads its inputs from the command line; give URLs, files or a search" }
        let bytes = Array(text.utf8)
        if bytes.count >= 3, (0x41...0x5A).contains(bytes[0] & 0xDF), bytes[1] == UInt8(ascii: ":"),
            bytes[2] == UInt8(ascii: "\\") || bytes[2] == UInt8(ascii: "/")
        {
            return "'\(text)' is a Windows path: give the file's path on this machine"
        }
        if let scheme = QueryLocation.leadingScheme(of: text), QueryLocation.nonWebSchemes.contains(scheme),
            !QueryLocation.readableSchemes.contains(scheme)
        {
            return "'\(text)' is a \(scheme): URL: Trawl reads http, https, file and data URLs"
        }
        return nil
    }

}
