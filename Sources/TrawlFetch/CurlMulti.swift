import CCurl

/// Owns one `CURLM *` and the `CURLSH *` whose cookie jar its transfers share.
///
/// Confined to the event loop's thread, except ``wakeup()``, which libcurl documents as safe
/// to call from any thread.
final class CurlMulti {
    let raw: UnsafeMutableRawPointer
    let share: UnsafeMutableRawPointer?

    init?() {
        guard CurlGlobal.initialized, let raw = curl_multi_init() else { return nil }
        self.raw = raw
        var share = curl_share_init()
        // One thread uses the share handle, so it needs no lock callbacks. A share that will
        // not share cookies is dropped: each transfer then keeps its own (still correct).
        if let handle = share, trawl_share_setopt_long(handle, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue)) != CURLSHE_OK {
            curl_share_cleanup(handle)
            share = nil
        }
        self.share = share
    }

    deinit {
        curl_multi_cleanup(raw)
        if let share { curl_share_cleanup(share) }
    }

    // Each call throws ``CurlCallError`` naming it when libcurl does not return CURLM_OK.

    func add(_ easy: EasyHandle) throws { try CurlCheck.multi(curl_multi_add_handle(raw, easy.raw), "curl_multi_add_handle") }

    func remove(_ easy: EasyHandle) throws { try CurlCheck.multi(curl_multi_remove_handle(raw, easy.raw), "curl_multi_remove_handle") }

    /// Moves every transfer on; returns how many are still running.
    func perform() throws -> Int {
        var running: Int32 = 0
        try CurlCheck.multi(curl_multi_perform(raw, &running), "curl_multi_perform")
        return Int(running)
    }

    /// Waits for activity, a wakeup, or `timeoutMS`.
    func poll(timeoutMS: Int32) throws {
        var fds: Int32 = 0
        try CurlCheck.multi(curl_multi_poll(raw, nil, 0, timeoutMS, &fds), "curl_multi_poll")
    }

    /// Ends a `poll` early; safe from any thread. It fails only for a handle that is not a
    /// multi handle; were it to fail, the command it announces waits for the poll's timeout
    /// (at most a second while transfers run), it is not lost.
    @discardableResult
    func wakeup() -> Bool { curl_multi_wakeup(raw) == CURLM_OK }

    /// Finished transfers since the last call: the easy handle's pointer and its result.
    func completed() -> [(UnsafeMutableRawPointer, CURLcode)] {
        var done: [(UnsafeMutableRawPointer, CURLcode)] = []
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(raw, &remaining) {
            if message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle {
                done.append((easy, message.pointee.data.result))
            }
        }
        return done
    }
}
