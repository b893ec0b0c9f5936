import Foundation
import PostgresNIO

/// Where the queue lives: a `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` URL, as psql and
/// libpq take it. `?host=/run/postgresql` reaches the server over its Unix socket instead.
/// `?sslmode=` asks for TLS as libpq does (``TLSMode``), `&sslrootcert=FILE` names the
/// certificates that sign the server's (PEM; the system's trusted roots otherwise).
/// `?application_name=` names the connections in `pg_stat_activity` (`trawl` otherwise).
///
/// ```swift
/// let location = try QueueLocation("postgres://trawl@db.internal:5432/crawl")
/// let secured = try QueueLocation("postgres://trawl@db.internal/crawl?sslmode=verify-full&sslrootcert=/etc/trawl/ca.pem")
/// ```
public struct QueueLocation: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    /// A Unix socket folder (`?host=/path`), used instead of TCP.
    public var socketFolder: String?
    /// Whether and how TCP connections use TLS (`?sslmode=`; none without it).
    public var tls: TLSMode
    /// PEM certificates the server's certificate must chain to (`?sslrootcert=`).
    public var rootCertificates: String?
    /// The connections' name in `pg_stat_activity` (`?application_name=`).
    public var applicationName: String?

    /// `?sslmode=`: libpq's modes, checked the same way.
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// No TLS (also without `sslmode`).
        case disable
        /// TLS if the server offers it, its certificate not checked.
        case prefer
        /// TLS or no connection; the certificate is not checked (checked as `verify-ca` when
        /// `sslrootcert` is given, as libpq does).
        case require
        /// TLS with a certificate that chains to a trusted root; any host name.
        case verifyCA = "verify-ca"
        /// TLS with a trusted certificate issued for the host connected to.
        case verifyFull = "verify-full"
    }

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
        var tls = TLSMode.disable
        var roots: String?
        var application: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "host": socket = item.value
            case "sslmode":
                guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                    let modes = TLSMode.allCases.map(\.rawValue).joined(separator: ", ")
                    throw QueueError(.invalidLocation, location: shown, message: "the queue URL's sslmode '\(item.value ?? "")' is not one of \(modes)")
                }
                tls = mode
            case "sslrootcert": roots = item.value
            case "application_name": application = item.value
            default:
                throw QueueError(
                    .invalidLocation, location: shown,
                    message: "the queue URL's parameter '\(item.name)' is not supported (only host=SOCKET_FOLDER, sslmode, sslrootcert and application_name)")
            }
        }
        if let roots, tls == .disable || tls == .prefer {
            throw QueueError(.invalidLocation, location: shown, message: "sslrootcert=\(roots) needs sslmode=require, verify-ca or verify-full")
        }
        if let roots, !FileManager.default.isReadableFile(atPath: roots) {
            throw QueueError(.invalidLocation, location: shown, message: "the queue URL's sslrootcert file \(roots) cannot be read")
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
        self.tls = tls
        self.rootCertificates = roots
        self.applicationName = application
    }

    /// The URL without its password.
    public var description: String {
        var parameters = socketFolder.map { ["host=\($0)"] } ?? []
        if tls != .disable { parameters.append("sslmode=\(tls.rawValue)") }
        if let rootCertificates { parameters.append("sslrootcert=\(rootCertificates)") }
        if let applicationName { parameters.append("application_name=\(applicationName)") }
        let query = parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&")
        return "postgres://\(user)@\(socketFolder == nil ? host : ""):\(port)/\(database)\(query)"
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
        get throws {
            var configuration: PostgresConnection.Configuration
            if let socketFolder {
                configuration = .init(unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)", username: user, password: password, database: database)
            } else {
                let tls: PostgresConnection.Configuration.TLS
                switch self.tls {
                case .disable: tls = .disable
                case .prefer: tls = .prefer(try NIOSSLContext(configuration: tlsConfiguration))
                case .require, .verifyCA, .verifyFull: tls = .require(try NIOSSLContext(configuration: tlsConfiguration))
                }
                configuration = .init(host: host, port: port, username: user, password: password, database: database, tls: tls)
            }
            configuration.options.additionalStartupParameters = startupParameters
            return configuration
        }
    }

    /// The client's configuration: TCP (with TLS as `sslmode` says), or the Unix socket.
    var clientConfiguration: PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketFolder {
            configuration = .init(
                unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        } else {
            let tls: PostgresClient.Configuration.TLS
            switch self.tls {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(tlsConfiguration)
            case .require, .verifyCA, .verifyFull: tls = .require(tlsConfiguration)
            }
            configuration = .init(host: host, port: port, username: user, password: password, database: database, tls: tls)
        }
        configuration.options.maximumConnections = 8
        configuration.options.minimumConnections = 0
        configuration.options.additionalStartupParameters = startupParameters
        return configuration
    }

    /// Sent when a connection starts: its name, so an operator can tell the queue's connections apart.
    private var startupParameters: [(String, String)] { [("application_name", applicationName ?? "trawl")] }

    /// NIOSSL's client configuration for ``tls``: what is checked of the server's certificate.
    var tlsConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let rootCertificates { configuration.trustRoots = .file(rootCertificates) }
        switch tls {
        case .disable, .prefer:
            configuration.certificateVerification = .none
        case .require:
            // libpq: `require` with a root certificate file checks the chain, as verify-ca.
            configuration.certificateVerification = rootCertificates == nil ? .none : .noHostnameVerification
        case .verifyCA:
            configuration.certificateVerification = .noHostnameVerification
        case .verifyFull:
            configuration.certificateVerification = .fullVerification
        }
        return configuration
    }
}
