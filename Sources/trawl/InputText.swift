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
        return input
    }

}
