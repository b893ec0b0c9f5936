import CLibXML2

/// Owns one libxml2 HTML push-parser context, fed with SAX callbacks into a ``ScanState``.
///
/// The state is passed to the callbacks as an unretained `Unmanaged` pointer; `state` is held
/// here, so it lives as long as the context that points at it.
final class PushParser {
    private let context: htmlParserCtxtPtr
    let state: ScanState

    /// - Parameter encoding: the encoding the bytes are in; libxml2 transcodes it to UTF-8,
    ///   and ignores any `<meta charset>` the document declares.
    init?(state: ScanState, encoding: String) {
        LibXML2.prepareThread()
        self.state = state
        var sax = htmlSAXHandler()
        sax.startElement = saxStartElement
        sax.endElement = saxEndElement
        sax.characters = saxCharacters
        sax.cdataBlock = saxCharacters
        let user = Unmanaged.passUnretained(state).toOpaque()
        guard let context = htmlCreatePushParserCtxt(&sax, user, nil, 0, nil, XML_CHAR_ENCODING_NONE) else { return nil }
        self.context = context
        htmlCtxtUseOptions(context, LibXML2.htmlOptions)
        if encoding != "utf-8", let handler = xmlFindCharEncodingHandler(encoding) {
            xmlSwitchToEncoding(context, handler)
        } else {
            xmlSwitchEncoding(context, XML_CHAR_ENCODING_UTF8)
        }
    }

    deinit { htmlFreeParserCtxt(context) }

    func feed(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        // htmlParseChunk takes an Int32 size: feed huge buffers in slices.
        var offset = 0
        while offset < bytes.count {
            let size = min(bytes.count - offset, 1 << 24)
            base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                _ = htmlParseChunk(context, $0 + offset, Int32(size), 0)
            }
            offset += size
        }
    }

    func finish() {
        _ = htmlParseChunk(context, nil, 0, 1)
    }
}

@available(*, unavailable)
extension PushParser: Sendable {}

private func state(_ context: UnsafeMutableRawPointer?) -> ScanState {
    Unmanaged<ScanState>.fromOpaque(context!).takeUnretainedValue()
}

private let saxStartElement: startElementSAXFunc = { context, name, attributes in
    guard let name, let tag = Tag(name) else { return }
    state(context).start(tag, Attributes(raw: attributes))
}

private let saxEndElement: endElementSAXFunc = { context, name in
    guard let name, let tag = Tag(name) else { return }
    state(context).end(tag)
}

private let saxCharacters: charactersSAXFunc = { context, characters, length in
    guard let characters, length > 0 else { return }
    let scan = state(context)
    guard scan.capture != .none else { return }
    scan.characters(UnsafeBufferPointer(start: characters, count: Int(length)))
}
