import Glibc
import NIOCore

/// Why the server could not listen, in words: the host's address cannot be had, or the address
/// cannot be bound (`cannot listen on 127.0.0.1:8080: address already in use`). Never the
/// networking library's type names.
public struct ListenError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { message }

    /// The sentence for a bind of `host`:`port` that failed with `error`, or `nil` when `error`
    /// is not a bind's.
    static func from(_ error: any Error, host: String, port: Int) -> ListenError? {
        let reason: String
        if let unknown = error as? SocketAddressError.UnknownHost {
            reason = "the system gives no address for '\(unknown.host)' (\(unknown.errorDescription.lowercased()))"
        } else if let io = error as? IOError, io.description.hasPrefix("bind") {
            reason = String(cString: strerror(io.errnoCode)).lowercased()
        } else if let address = error as? SocketAddressError {
            switch address {
            case .failedToParseIPString(let text): reason = "'\(text)' is not an IP address"
            case .unixDomainSocketPathTooLong: reason = "the socket path is too long"
            default: reason = "the address is not one this system supports"
            }
        } else {
            return nil
        }
        let shown = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return ListenError(message: "cannot listen on \(shown):\(port): \(reason)")
    }
}
