import CCurl

/// libcurl's process-wide initialisation, done once before the first handle.
enum CurlGlobal {
    static let initialized: Bool = {
        curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
    }()

    /// What this libcurl can decode, e.g. `"deflate, gzip, br, zstd"`.
    static var version: String {
        guard let info = trawl_curl_version_info(), let v = info.pointee.version else { return "unknown" }
        return String(cString: v)
    }
}
