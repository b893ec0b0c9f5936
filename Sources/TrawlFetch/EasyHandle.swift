import CCurl

/// Owns one `CURL *` and what libcurl borrows from it: the header list and the error buffer.
///
/// Confined to the event loop's thread; never shared.
final class EasyHandle {
    let raw: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var resolveList: UnsafeMutablePointer<curl_slist>?
    /// libcurl writes its detailed message here (`CURLOPT_ERRORBUFFER`).
    let errorBuffer: UnsafeMutablePointer<CChar>

    init?() {
        guard CurlGlobal.initialized, let raw = curl_easy_init() else { return nil }
        self.raw = raw
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        // Without its error buffer a handle still works; libcurl's short message stands in.
        if trawl_easy_setopt_ptr(raw, CURLOPT_ERRORBUFFER, errorBuffer) != CURLE_OK { errorBuffer[0] = 0 }
    }

    deinit {
        curl_easy_cleanup(raw)
        curl_slist_free_all(headerList)
        curl_slist_free_all(resolveList)
        errorBuffer.deallocate()
    }

    // Each setter throws ``CurlCallError`` naming the option when libcurl refuses it.

    /// Lets a transfer whose write callback paused it receive again (`curl_easy_pause` with
    /// `CURLPAUSE_CONT`). libcurl may hand on the bytes it held at once, from inside this call.
    func resume() throws {
        try CurlCheck.easy(trawl_easy_resume(raw), "curl_easy_pause")
    }

    func set(_ option: CURLoption, _ value: Int) throws {
        try CurlCheck.easy(trawl_easy_setopt_long(raw, option, value), CurlCheck.setopt(option))
    }

    func set(_ option: CURLoption, _ value: String) throws {
        // libcurl copies string options (since 7.17), so the Swift string may go away after.
        try CurlCheck.easy(value.withCString { trawl_easy_setopt_string(raw, option, $0) }, CurlCheck.setopt(option))
    }

    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws {
        try CurlCheck.easy(trawl_easy_setopt_ptr(raw, option, pointer), CurlCheck.setopt(option))
    }

    func set(_ option: CURLoption, offset value: Int64) throws {
        try CurlCheck.easy(trawl_easy_setopt_off_t(raw, option, curl_off_t(value)), CurlCheck.setopt(option))
    }

    func set(_ option: CURLoption, callback: trawl_curl_data_callback) throws {
        try CurlCheck.easy(trawl_easy_setopt_data_callback(raw, option, callback), CurlCheck.setopt(option))
    }

    /// Shares the multi handle's cookie jar.
    func setShare(_ share: UnsafeMutableRawPointer) throws {
        try CurlCheck.easy(trawl_easy_setopt_share(raw, share), CurlCheck.setopt(CURLOPT_SHARE))
    }

    /// Sets request headers; the list lives as long as this handle.
    func setHeaders(_ lines: [String]) throws {
        curl_slist_free_all(headerList)
        headerList = Self.slist(lines)
        try CurlCheck.easy(trawl_easy_setopt_slist(raw, CURLOPT_HTTPHEADER, headerList), CurlCheck.setopt(CURLOPT_HTTPHEADER))
    }

    /// Sets `--connect-to` entries; the list lives as long as this handle.
    func setConnectTo(_ entries: [String]) throws {
        curl_slist_free_all(resolveList)
        resolveList = Self.slist(entries)
        try CurlCheck.easy(trawl_easy_setopt_slist(raw, CURLOPT_CONNECT_TO, resolveList), CurlCheck.setopt(CURLOPT_CONNECT_TO))
    }

    private static func slist(_ lines: [String]) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines { list = line.withCString { curl_slist_append(list, $0) } }
        return list
    }

    func info(long option: CURLINFO) -> Int {
        var value = 0
        _ = trawl_easy_getinfo_long(raw, option, &value)
        return value
    }

    func info(string option: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard trawl_easy_getinfo_string(raw, option, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    /// libcurl's message for the last failure: the error buffer, else `curl_easy_strerror`.
    func message(for code: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
    }
}

@available(*, unavailable)
extension EasyHandle: Sendable {}
