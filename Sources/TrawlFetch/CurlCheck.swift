import CCurl

/// A libcurl call that did not succeed: which call (and option), libcurl's code and its words.
/// It becomes the transfer's ``FetchError``, naming the call; nothing libcurl refuses is ignored.
struct CurlCallError: Error, CustomStringConvertible {
    var call: String
    var code: Int32
    var message: String

    var description: String { "\(call) failed: \(message) (\(code))" }
}

/// Checks libcurl results in one place, as NIO routes every errno through one helper.
enum CurlCheck {
    static func easy(_ code: CURLcode, _ call: @autoclosure () -> String) throws {
        guard code != CURLE_OK else { return }
        throw CurlCallError(call: call(), code: Int32(code.rawValue), message: String(cString: curl_easy_strerror(code)))
    }

    static func multi(_ code: CURLMcode, _ call: @autoclosure () -> String) throws {
        guard code != CURLM_OK else { return }
        throw CurlCallError(call: call(), code: code.rawValue, message: String(cString: curl_multi_strerror(code)))
    }

    /// `curl_easy_setopt(CURLOPT_URL)`: the option's name as libcurl knows it.
    static func setopt(_ option: CURLoption) -> String {
        let name = curl_easy_option_by_id(option).flatMap { $0.pointee.name }.map { String(cString: $0) }
        return "curl_easy_setopt(CURLOPT_\(name ?? String(option.rawValue)))"
    }
}
