import CCurl
import Foundation
import Glibc

extension CurlTransfer {
    /// Makes libcurl ask ``openSocket(_:)`` for every socket of this transfer, and turns off
    /// proxies from the environment (through a proxy, the address connected to would be the
    /// proxy's, and the proxy would reach whatever the URL names).
    func installAddressGuard() throws {
        try easy.set(CURLOPT_PROXY, "")
        try CurlCheck.easy(trawl_easy_setopt_opensocket_callback(easy.raw, curlOpenSocketCallback), CurlCheck.setopt(CURLOPT_OPENSOCKETFUNCTION))
        try easy.set(CURLOPT_OPENSOCKETDATA, pointer: Unmanaged.passUnretained(self).toOpaque())
    }

    /// libcurl is about to connect to `address` (after its DNS lookup, a redirect or
    /// `connectTo`): a socket if the policy allows both the address and the host as the URL
    /// names it, otherwise `CURL_SOCKET_BAD` — libcurl then tries the host's next address, or
    /// fails the transfer with the refusal kept here.
    fileprivate func openSocket(_ address: UnsafePointer<curl_sockaddr>) -> curl_socket_t {
        // The URL being connected for: the effective URL follows redirects.
        let current = easy.info(string: CURLINFO_EFFECTIVE_URL) ?? url
        let host = URLComponents(string: current)?.host ?? current
        let target = IPAddress(socketAddress: trawl_curl_sockaddr_address(address), length: Int(address.pointee.addrlen))
        guard let target, addressPolicy.decision(for: target).isAllowed, addressPolicy.decision(forHost: host)?.isAllowed != false else {
            addressRefusal = FetchError.refused(host: host, url: url)
            return trawl_curl_socket_bad()
        }
        addressRefusal = nil
        let descriptor = socket(address.pointee.family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue), address.pointee.protocol)
        return descriptor >= 0 ? descriptor : trawl_curl_socket_bad()
    }
}

private let curlOpenSocketCallback: trawl_curl_opensocket_callback = { context, _, address in
    guard let context, let address else { return trawl_curl_socket_bad() }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().openSocket(address)
}
