public import TrawlCore

/// Loads the URLs of some schemes. A ``Loader`` picks the handler by the URL's scheme.
///
/// Register your own for test or replay schemes:
/// ```swift
/// let loader = Loader(handlers: [MyReplayHandler()])
/// ```
public protocol SchemeHandler: Sendable {
    /// Lower-case schemes this handler serves (`["http", "https"]`).
    var schemes: [String] { get }
    /// Streams the response: one ``FetchEvent/head(_:)`` first, then body pieces.
    func load(_ request: FetchRequest, configuration: LoaderConfiguration) -> AsyncThrowingStream<FetchEvent, any Error>
}
