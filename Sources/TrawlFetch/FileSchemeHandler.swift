import Foundation
import Glibc
package import TrawlCore

/// `file:` URLs: the file's bytes, read in pieces, with a content type guessed from its name.
package struct FileSchemeHandler: SchemeHandler {
    package let schemes = ["file"]
    /// Bytes per body piece.
    package var chunkSize = 256 << 10
    /// A file of known size up to this is read in one piece; a larger one in ``chunkSize``
    /// pieces, each read when the stream's consumer asks for it.
    package var wholeReadLimit = 1 << 20

    package init() {}

    package func load(_ request: FetchRequest, configuration: LoaderConfiguration) -> AsyncThrowingStream<FetchEvent, any Error> {
        // A guarded loader fetches for strangers: this machine's files are as off limits as its
        // loopback address.
        if configuration.addressPolicy.isGuarding {
            let error = FetchError(
                .refusedAddress, url: request.url.absoluteString, message: "file: URLs read this machine's files and are refused by the address policy")
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
        let url = request.url
        let reader = FileReader(url: url, chunkSize: chunkSize, wholeReadLimit: wholeReadLimit, maxBodySize: configuration.maxBodySize)
        // Each piece is read when the consumer asks for it: a reader slower than the disk
        // holds one piece, never the file.
        return AsyncThrowingStream(unfolding: {
            do {
                return try await reader.next()
            } catch is CancellationError {
                throw FetchError(.cancelled, url: url.absoluteString, message: "cancelled")
            }
        })
    }
}

/// One `file:` response, read a piece at a time with `read(2)` into a buffer of the piece's
/// size (nothing else is allocated for the file).
private actor FileReader {
    let url: URL
    let chunkSize: Int
    let wholeReadLimit: Int
    let maxBodySize: Int
    private var descriptor: Int32 = -1
    private var started = false
    private var total = 0
    private var size: Int?

    init(url: URL, chunkSize: Int, wholeReadLimit: Int, maxBodySize: Int) {
        self.url = url
        self.chunkSize = chunkSize
        self.wholeReadLimit = wholeReadLimit
        self.maxBodySize = maxBodySize
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// The head first, then the body's pieces; `nil` at the end.
    func next() throws -> FetchEvent? {
        try Task.checkCancellation()
        if !started {
            started = true
            return try open()
        }
        guard descriptor >= 0 else { return nil }
        let count = total == 0 && (size ?? 0) > 0 && (size ?? 0) <= wholeReadLimit ? size! : chunkSize
        var piece = Data(count: count)
        let read = piece.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, count) }
        guard read > 0 else {
            close(descriptor)
            descriptor = -1
            if read < 0 { throw FetchError(.transferFailed, url: url.absoluteString, message: "reading the file failed (errno \(errno))") }
            return nil
        }
        if read < count { piece.removeSubrange(read...) }
        total += read
        if total > maxBodySize {
            throw FetchError(.bodyTooLarge, url: url.absoluteString, message: "body passed \(maxBodySize) bytes")
        }
        return .body(piece)
    }

    private func open() throws -> FetchEvent {
        let path = url.path
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw FetchError(.fileNotFound, url: url.absoluteString, message: "no readable file at \(path)")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT != S_IFDIR else {
            close(descriptor)
            throw FetchError(.fileNotFound, url: url.absoluteString, message: "\(path) is a directory")
        }
        let size: Int? = status.st_mode & S_IFMT == S_IFREG ? Int(status.st_size) : nil
        if let size, size > maxBodySize {
            close(descriptor)
            throw FetchError(.bodyTooLarge, url: url.absoluteString, message: "file is \(size) bytes; the cap is \(maxBodySize)")
        }
        self.descriptor = descriptor
        self.size = size
        var headers: HTTPHeaders = [:]
        if let type = MIMETypes.type(forPath: path) { headers.add(name: "Content-Type", value: type) }
        if let size { headers.add(name: "Content-Length", value: String(size)) }
        return .head(ResponseHead(url: url, status: 200, headers: headers))
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
