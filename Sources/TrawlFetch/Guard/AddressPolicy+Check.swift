extension AddressPolicy {
    /// Resolves `host` and returns the addresses a connection to it may use: for code that
    /// connects by itself (the browser's request interception, a server's own checks).
    ///
    /// An address host (`10.0.0.1`, `0x7f.1`, `[::1]`), and `localhost` or a name under it
    /// when loopback is refused, is decided without a lookup. A name
    /// is resolved and every address checked: refused ones are dropped, and when none is left
    /// the host is refused. Connect only to what this returns — pin it (curl's `--connect-to`,
    /// ``CheckedHost/connectToEntry``) — never look the name up again, or a rebinding DNS
    /// server can answer differently the second time.
    ///
    /// ```swift
    /// let checked = try await AddressPolicy.denyPrivate.check(host: "example.com", port: 443)
    /// // checked.addresses: the public addresses of example.com
    /// ```
    /// - Throws: ``FetchError`` with ``FetchError/Code/refusedAddress`` naming the host (not
    ///   the address it resolved to), or ``FetchError/Code/hostNotFound``.
    package func check(host: String, port: Int, resolver: any HostResolver = SystemHostResolver()) async throws -> CheckedHost {
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        // An address, or a name reserved for loopback, is decided without a lookup.
        if let decided = decision(forHost: host), !decided.isAllowed { throw FetchError.refused(host: host, url: host) }
        if let literal = IPAddress(host: host) { return CheckedHost(host: name, port: port, addresses: [literal]) }
        let resolved = try await resolver.addresses(for: name, port: port)
        let allowed = resolved.filter { decision(for: $0).isAllowed }
        guard !allowed.isEmpty else { throw FetchError.refused(host: host, url: host) }
        return CheckedHost(host: name, port: port, addresses: allowed)
    }
}

/// A host an ``AddressPolicy`` checked, with the addresses connections to it may use.
package struct CheckedHost: Sendable, Hashable {
    package var host: String
    package var port: Int
    /// Allowed addresses, in the resolver's order; never empty.
    package var addresses: [IPAddress]

    /// `HOST:PORT:ADDRESS:PORT`, curl's `--connect-to` (``LoaderConfiguration/connectTo``) for
    /// the first address: connections to the host go there, not to a fresh lookup.
    package var connectToEntry: String {
        let address = addresses[0]
        let target = address.bitWidth == 128 ? "[\(address)]" : "\(address)"
        let name = host.contains(":") ? "[\(host)]" : host
        return "\(name):\(port):\(target):\(port)"
    }
}

extension FetchError {
    /// ``Code/refusedAddress`` for `host`: the message names the host, never the address it
    /// resolved to (which would tell a stranger about the network behind the guard).
    static func refused(host: String, url: String) -> FetchError {
        // An IPv6 host in brackets, as in a URL, however the caller spelled it.
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? host.dropFirst().dropLast() : Substring(host)
        let named = bare.contains(":") ? "[\(bare)]" : String(bare)
        return FetchError(
            .refusedAddress, url: url,
            message:
                "'\(named)' is not a public address: the address policy refuses loopback, private, link-local and other non-public destinations (--allow-address opens a range)"
        )
    }
}
