import CCurl
import Dispatch
import Glibc

/// Turns a host name into the addresses a connection would use.
///
/// ``SystemHostResolver`` asks the system (`getaddrinfo`); tests give a resolver whose answers
/// change between lookups, to show that what ``AddressPolicy/check(host:port:resolver:)`` returns
/// is what gets connected to.
package protocol HostResolver: Sendable {
    /// - Throws: ``FetchError`` with ``FetchError/Code/hostNotFound`` when the name has no address.
    func addresses(for host: String, port: Int) async throws -> [IPAddress]
}

/// `getaddrinfo`, on threads of its own: a lookup can block for seconds, and must not hold
/// one of the few threads Swift concurrency runs every task on. A lookup in progress cannot be
/// cancelled; it ends when the system's resolver gives up (its timeout, `/etc/resolv.conf`).
package struct SystemHostResolver: HostResolver {
    /// Custom queues run on Dispatch's overcommitting threads, not the cooperative pool.
    private static let queue = DispatchQueue(label: "trawl.resolve", attributes: .concurrent)

    package init() {}

    package func addresses(for host: String, port: Int) async throws -> [IPAddress] {
        try await withCheckedThrowingContinuation { continuation in
            Self.queue.async { continuation.resume(with: Result { try Self.lookUp(host, port: port) }) }
        }
    }

    /// One blocking `getaddrinfo`; its list is freed before returning.
    package static func lookUp(_ host: String, port: Int) throws -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        guard status == 0 else {
            let reason = status == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(status))
            throw FetchError(.hostNotFound, url: host, message: "cannot resolve '\(host)': \(reason)")
        }
        var addresses: [IPAddress] = []
        var entry = list
        while let current = entry {
            if let socketAddress = current.pointee.ai_addr,
                let address = IPAddress(socketAddress: socketAddress, length: Int(current.pointee.ai_addrlen)),
                !addresses.contains(address)
            {
                addresses.append(address)
            }
            entry = current.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw FetchError(.hostNotFound, url: host, message: "'\(host)' has no IPv4 or IPv6 address") }
        return addresses
    }
}
