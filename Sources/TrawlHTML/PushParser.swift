import CLibXML2

/// Owns one libxml2 HTML push-parser context, fed with SAX callbacks into a ``ScanState``.
///
/// The state is passed to the callbacks as an unretained `Unmanaged` pointer; `state` is held
/// here, so it lives as long as the context that points at it.
final class PushParser {
    private let context: htmlParserCtxtPtr
    let state: ScanState
    /// Script and style text read without libxml2 (UTF-8 input only); nil: libxml2 reads all.
    private var rawText: RawTextBypass?

    /// - Parameters:
    ///   - encoding: the encoding the bytes are in; libxml2 transcodes it to UTF-8, and
    ///     ignores any `<meta charset>` the document declares.
    ///   - bypassesRawText: read script and style text without libxml2 (see ``RawTextBypass``).
    init?(state: ScanState, encoding: String, bypassesRawText: Bool = true) {
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
            if bypassesRawText { rawText = RawTextBypass() }
        }
    }

    deinit { htmlFreeParserCtxt(context) }

    /// Feeds the next bytes of the document.
    func feed(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard rawText != nil else { return parse(bytes) }
        if rawText!.carry.isEmpty { return feedBypassingRawText(bytes) }
        // Rare: a tag or character cut by the block boundary waits in front of these bytes.
        let joined = rawText!.carry + bytes
        rawText!.carry = []
        joined.withUnsafeBufferPointer(feedBypassingRawText)
    }

    private func feedBypassingRawText(_ bytes: UnsafeBufferPointer<UInt8>) {
        var position = 0
        while position < bytes.count {
            if let element = rawText!.inside {
                var stop = RawTextBypass.textStop(in: bytes, from: position, element: element)
                if stop.reason == .unusual {
                    // libxml2 skips a NUL that starts its input but reads one inside text as a
                    // space: it gets the character before the odd byte too.
                    stop.index = RawTextBypass.characterStart(before: stop.index, in: bytes, notBefore: position)
                }
                if element == .script, stop.index > position { state.characters(UnsafeBufferPointer(rebasing: bytes[position..<stop.index])) }
                position = stop.index
                switch stop.reason {
                case .endTag, .unusual:
                    // libxml2, still inside the element, reads on from here.
                    rawText!.inside = nil
                case .incomplete:
                    rawText!.carry = Array(bytes[position...])
                    return
                case .end:
                    return
                }
            } else {
                switch RawTextBypass.nextStartTag(in: bytes, from: position) {
                case .none:
                    return parse(UnsafeBufferPointer(rebasing: bytes[position...]))
                case .incomplete(let start):
                    let short = bytes.count - start <= RawTextBypass.maxCarriedTag
                    parse(UnsafeBufferPointer(rebasing: bytes[position..<(short ? start : bytes.count)]))
                    if short { rawText!.carry = Array(bytes[start...]) }
                    return
                case .endsBefore(let end):
                    parse(UnsafeBufferPointer(rebasing: bytes[position..<end]))
                    position = end
                    rawText!.inside = RawTextBypass.Element(rawValue: trawl_html_raw_text_element(context))
                }
            }
        }
    }

    /// Hands bytes to libxml2.
    private func parse(_ bytes: UnsafeBufferPointer<UInt8>) {
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
        // Whatever waited for more bytes is libxml2's to read as it would have.
        if let carry = rawText?.carry, !carry.isEmpty {
            rawText!.carry = []
            carry.withUnsafeBufferPointer(parse)
        }
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
