import CLibXML2

/// libxml2's process-wide set-up, done once.
enum LibXML2 {
    static let initialized: Void = { xmlInitParser() }()

    /// Call before parsing on a thread: the generic error handler is per thread, and encoding
    /// errors ignore `HTML_PARSE_NOERROR`.
    static func prepareThread() {
        _ = initialized
        trawl_xml_silence_errors_on_this_thread()
    }

    /// Whether the thinned feed may read libxml2's push-parser state: the headers compiled
    /// against and the library loaded are both 2.9, whose private fields the feed was checked
    /// against. Elsewhere every byte goes to libxml2 (the portable path).
    static let readsPushState: Bool = {
        let compiled = Int(trawl_html_compiled_version())
        let loaded = Int(trawl_html_runtime_version())
        return trawl_html_reads_push_state() != 0 && compiled / 100 == loaded / 100
    }()

    /// What an `htmlParseChunk` result means. libxml2 returns the last error it met, and in
    /// recovery mode most are benign (an unknown HTML5 tag); only these stop the parse.
    /// - Returns: a reason naming the call, or `nil` when the parse goes on.
    static func chunkFailure(_ result: Int32) -> String? {
        switch result {
        case -1: "htmlParseChunk stopped: libxml2 could not take more input (\(result))"
        case Int32(XML_ERR_NO_MEMORY.rawValue): "htmlParseChunk failed: libxml2 ran out of memory (\(result))"
        case Int32(XML_ERR_INTERNAL_ERROR.rawValue): "htmlParseChunk failed: libxml2 internal error (\(result))"
        default: nil
        }
    }

    static let htmlOptions = Int32(
        HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
            | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue | HTML_PARSE_IGNORE_ENC.rawValue)
}
