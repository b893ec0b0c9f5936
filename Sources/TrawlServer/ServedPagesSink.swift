import TrawlCore

/// The server's sink: hands on to the index only what clients resolved from the web — http and
/// https pages, and searches of the search engines — never a `file:`, `data:` or other input,
/// nor the index's own `!local` answers.
///
/// The server refuses such inputs before any engine sees them; this is the index's own guard,
/// so that nothing else the server may one day run (a batch list, a session) can put a local
/// path into an index every client can search.
struct ServedPagesSink: ExtractionSink {
    let base: any ExtractionSink

    func record(_ extraction: Extraction) {
        guard Self.admits(extraction) else { return }
        base.record(extraction)
    }

    static func admits(_ extraction: Extraction) -> Bool {
        guard extraction.engine != "local" else { return false }
        guard let url = extraction.request.query.url else { return extraction.engine != "web" }
        let scheme = url.scheme?.lowercased()
        return scheme == "http" || scheme == "https"
    }
}
