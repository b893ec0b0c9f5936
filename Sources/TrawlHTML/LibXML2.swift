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

    static let htmlOptions = Int32(
        HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
            | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue | HTML_PARSE_IGNORE_ENC.rawValue)
}
