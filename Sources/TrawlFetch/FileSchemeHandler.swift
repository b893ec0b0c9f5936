import Foundation
package import TrawlCore

/// `file:` URLs: the file's bytes, read in pieces, with a content type guessed from its name.
package struct FileSchemeHandler: SchemeHandler {
    package let schemes = ["file"]
    /// Bytes per body piece.
    package var chunkSize = 256 << 10

    package init() {}

    package func load(_ request: FetchRequest, configuration: LoaderConfiguration) -> AsyncThrowingStream<FetchEvent, any Error> {
        // A guarded loader fetches for strangers: this machine's files are as off limits as its
        // loopback address.
        if configuration.addressPolicy.isGuarding {
            let error = FetchError(
                .refusedAddress, url: request.url.absoluteString, message: "file: URLs read this machine's files and are refused by the address policy")
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
        let chunkSize = self.chunkSize
        return AsyncThrowingStream { continuation in
            let task = Task {
                let url = request.url
                let path = url.path
                do {
                    guard let handle = FileHandle(forReadingAtPath: path) else {
                        throw FetchError(.fileNotFound, url: url.absoluteString, message: "no readable file at \(path)")
                    }
                    defer { try? handle.close() }
                    var isDirectory: ObjCBool = false
                    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                        throw FetchError(.fileNotFound, url: url.absoluteString, message: "\(path) is a directory")
                    }
                    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
                    if let size, size > configuration.maxBodySize {
                        throw FetchError(.bodyTooLarge, url: url.absoluteString, message: "file is \(size) bytes; the cap is \(configuration.maxBodySize)")
                    }
                    var headers: HTTPHeaders = [:]
                    if let type = MIMETypes.type(forPath: path) { headers.add(name: "Content-Type", value: type) }
                    if let size { headers.add(name: "Content-Length", value: String(size)) }
                    continuation.yield(.head(ResponseHead(url: url, status: 200, headers: headers)))
                    var total = 0
                    if let size, size > 0 {
                        // Known size within the cap: one read, one buffer, no pieces to join.
                        let body = try handle.read(upToCount: size) ?? Data()
                        total = body.count
                        if !body.isEmpty { continuation.yield(.body(body)) }
                    }
                    while true {
                        try Task.checkCancellation()
                        guard let chunk = try handle.read(upToCount: chunkSize), !chunk.isEmpty else { break }
                        total += chunk.count
                        if total > configuration.maxBodySize {
                            throw FetchError(.bodyTooLarge, url: url.absoluteString, message: "body passed \(configuration.maxBodySize) bytes")
                        }
                        continuation.yield(.body(chunk))
                    }
                    continuation.finish()
                } catch is CancellationError {
                    continuation.finish(throwing: FetchError(.cancelled, url: url.absoluteString, message: "cancelled"))
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// Content types by file name, for schemes without headers.
enum MIMETypes {
    static func type(forPath path: String) -> String? {
        switch (path as NSString).pathExtension.lowercased() {
        case "html", "htm": "text/html"
        case "json": "application/json"
        case "txt": "text/plain"
        case "xml": "application/xml"
        case "gif": "image/gif"
        case "mp4": "video/mp4"
        case "webm": "video/webm"
        case "webp": "image/webp"
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "har": "application/json"
        default: nil
        }
    }
}
