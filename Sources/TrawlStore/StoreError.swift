/// The store could not be opened or used.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The store file.
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
