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
        share = curl_share_init()
        if let share {
            // One thread uses the share handle, so it needs no lock callbacks.
            _ = trawl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_COOKIE.rawValue))
        }
    }

    deinit {
        curl_multi_cleanup(raw)
        if let share { curl_share_cleanup(share) }
    }

    func add(_ easy: EasyHandle) -> CURLMcode { curl_multi_add_handle(raw, easy.raw) }

    func remove(_ easy: EasyHandle) { _ = curl_multi_remove_handle(raw, easy.raw) }

    func perform() -> Int {
        var running: Int32 = 0
        _ = curl_multi_perform(raw, &running)
        return Int(running)
    }

    /// Waits for activity, a wakeup, or `timeoutMS`.
    func poll(timeoutMS: Int32) {
        var fds: Int32 = 0
        _ = curl_multi_poll(raw, nil, 0, timeoutMS, &fds)
    }

    /// Ends a `poll` early; safe from any thread.
    func wakeup() { _ = curl_multi_wakeup(raw) }

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
