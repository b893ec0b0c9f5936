import Foundation
import PostgresNIO

/// Where the queue lives: a `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` URL, as psql and
/// libpq take it. `?host=/run/postgresql` reaches the server over its Unix socket instead.
///
/// ```swift
/// let location = try QueueLocation("postgres://trawl@db.internal:5432/crawl")
/// ```
public struct QueueLocation: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    /// A Unix socket folder (`?host=/path`), used instead of TCP.
    public var socketFolder: String?

    /// Parses `text`.
    /// - Throws: ``QueueError/Code/invalidLocation`` naming the URL (password removed).
    public init(_ text: String) throws {
        let shown = Self.redacted(text)
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw QueueError(.invalidLocation, location: shown, message: "the queue must be a postgres://USER@HOST:PORT/DATABASE URL")
        }
        var socket: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "host": socket = item.value
            case "sslmode" where item.value == "disable": break
            default:
                throw QueueError(.invalidLocation, location: shown, message: "the queue URL's parameter '\(item.name)' is not supported (only host=SOCKET_FOLDER and sslmode=disable)")
            }
        }
        let host = components.host ?? ""
        guard !host.isEmpty || socket != nil else {
            throw QueueError(.invalidLocation, location: shown, message: "the queue URL names no host")
        }
        let database = String(components.path.drop { $0 == "/" })
        self.host = host.isEmpty ? "localhost" : host
        self.port = components.port ?? 5432
        self.user = components.user.flatMap { $0.removingPercentEncoding } ?? "postgres"
        self.password = components.password.flatMap { $0.removingPercentEncoding }
        self.database = database.isEmpty ? self.user : database
        self.socketFolder = socket
    }

    /// The URL without its password.
    public var description: String {
        let target = socketFolder.map { "?host=\($0)" } ?? ""
        return "postgres://\(user)@\(socketFolder == nil ? host : ""):\(port)/\(database)\(target)"
    }

    /// `text` with any password in it replaced by `***`.
    static func redacted(_ text: String) -> String {
        guard let components = URLComponents(string: text), components.password != nil else { return text }
        var copy = components
        copy.password = "***"
        return copy.string ?? "(a queue URL)"
    }

    /// One connection's configuration, as ``clientConfiguration``.
    var connectionConfiguration: PostgresConnection.Configuration {
        if let socketFolder {
            return .init(unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        }
        return .init(host: host, port: port, username: user, password: password, database: database, tls: .disable)
    }

    /// The client's configuration: TCP without TLS (a queue on a private network or loopback), or the Unix socket.
    var clientConfiguration: PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketFolder {
            configuration = .init(
                unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        } else {
            configuration = .init(host: host, port: port, username: user, password: password, database: database, tls: .disable)
        }
        configuration.options.maximumConnections = 8
        configuration.options.minimumConnections = 0
        return configuration
    }
}
