import CLibXML2
import Glibc

/// Owns one libxml2 HTML push-parser context, fed with SAX callbacks into a ``ScanState``.
///
/// The state is passed to the callbacks as an unretained `Unmanaged` pointer; `state` is held
/// here, so it lives as long as the context that points at it.
///
/// ## The thinned feed
/// libxml2 reads a page a character at a time, and most of a page is bytes the scanner does
/// not want: script and style text (it wants script text as it is), text between tags, and
/// the attributes of elements it does not read. With UTF-8 input the parser feeds libxml2 only
/// what changes what libxml2 reports to the scanner, deciding each time from libxml2's own
/// state, read after it has consumed every byte it was given (``PushState``):
/// - in a raw-text element, its text is read with a byte search (``RawTextBypass``);
/// - in content, text libxml2 would only report is left out (``ContentText``);
/// - in content, a plain start tag of an element the scanner does not read goes as `<name>`
///   (``StartTagReader``): the same element for libxml2, without attributes to read.
///
/// Everything else goes to libxml2 as written, and libxml2 keeps deciding structure (implied
/// and auto-closed elements, comments, what is a script), so a wrong guess here costs speed,
/// never results. Leaving out a tag's attributes or a text run never changes libxml2's state
/// beyond what it reports: the corpus and the tests compare thinned scans with full ones.
final class PushParser {
    private let context: htmlParserCtxtPtr
    let state: ScanState
    /// Whether the feed is thinned (UTF-8 input and not turned off, and libxml2 has not
    /// switched to another encoding on invalid UTF-8).
    private var thins: Bool
    /// The raw-text element whose text is being read, or nil in markup.
    private var inside: RawTextBypass.Element?
    /// Text libxml2 would only report runs on past the end of the last block: it is left out
    /// as it arrives, up to its `<` (or a byte libxml2 must see).
    private var skippingText = false
    /// Bytes at the end of the last block that could not be decided yet (a start tag, or
    /// `</scr` or a UTF-8 sequence cut by the block boundary); they go in front of the next.
    private var carry: [UInt8] = []
    /// libxml2's state when last asked, valid while `fedSinceAsked` is false.
    private var lastState = PushState.busy
    private var fedSinceAsked = true
    /// The start tag being fed thinned: `<name`, the attributes kept, `>`.
    private var tagBuffer: [UInt8] = []
    /// Continuation bytes the last block's final UTF-8 sequence still needs.
    private var owedContinuations = 0
    /// Why libxml2 stopped, when an `htmlParseChunk` call failed: nothing more is fed.
    private(set) var failure: String?

    /// Bytes of earlier blocks held back for the next (a cut tag or character).
    var carriedCount: Int { carry.count }

    /// The longest start tag carried over to the next block; a longer one is fed to libxml2
    /// as it is.
    static let maxCarriedTag = 4096

    /// - Parameters:
    ///   - encoding: the encoding the bytes are in; libxml2 transcodes it to UTF-8, and
    ///     ignores any `<meta charset>` the document declares.
    ///   - thins: feed libxml2 only what changes what it reports (see above; UTF-8 only).
    init?(state: ScanState, encoding: String, thins: Bool = true) {
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
            self.thins = false
        } else {
            xmlSwitchEncoding(context, XML_CHAR_ENCODING_UTF8)
            // Only where the feed may read libxml2's state (2.9); elsewhere the portable path.
            self.thins = thins && LibXML2.readsPushState
        }
    }

    deinit { htmlFreeParserCtxt(context) }

    /// Feeds the next bytes of the document.
    func feed(_ bytes: UnsafeBufferPointer<UInt8>) {
        if thins {
            // Invalid UTF-8 would make libxml2 switch to Latin-1 within this block: from here
            // on it reads every byte itself, as it would have.
            if let owed = UTF8Scan.validate(bytes, pending: owedContinuations) { owedContinuations = owed } else { thins = false }
        }
        guard thins else {
            parseCarry()
            return parse(bytes)
        }
        if carry.isEmpty { return feedThinned(bytes) }
        // Rare: a tag or character cut by the block boundary waits in front of these bytes.
        let joined = carry + bytes
        carry = []
        joined.withUnsafeBufferPointer(feedThinned)
    }

    /// libxml2's state now.
    private func ask() -> PushState {
        if fedSinceAsked {
            lastState = PushState(context)
            fedSinceAsked = false
            // For good: the rest of the document goes to libxml2 as written.
            if lastState == .transcoding { thins = false }
        }
        return lastState
    }

    private func feedThinned(_ bytes: UnsafeBufferPointer<UInt8>) {
        let count = bytes.count
        guard let base = bytes.baseAddress, count > 0 else { return }
        var position = 0
        // bytes[unfed..<position] go to libxml2 as written, at the next flush.
        var unfed = 0
        func flush(to end: Int) {
            if end > unfed {
                parse(UnsafeBufferPointer(rebasing: bytes[unfed..<end]))
            }
            unfed = max(unfed, end)
        }
        /// After markup that ends at `position`: leaves out the text that follows when
        /// libxml2 would only report it, or starts reading raw text.
        func afterMarkup() {
            guard position < count, bytes[position] != UInt8(ascii: "<") else { return }
            flush(to: position)
            let now = ask()
            if case .rawText(let element) = now {
                inside = element
                return
            }
            guard let found = memchr(base + position, Int32(UInt8(ascii: "<")), count - position) else {
                // Text that runs past the block's end: left out as it comes when libxml2
                // would only report it (a page that is one long text node stays small).
                if case .content(textMatters: false) = now, state.capture == .none {
                    skippingText = true
                    skipText()
                }
                return
            }
            let textEnd = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            // Text inside a title (in an element within it, say) is the title's.
            if case .content = now, state.capture == .none, now.mayLeaveOut(ContentText.kind(of: bytes, position..<textEnd)) {
                unfed = textEnd
            }
            position = textEnd
        }

        /// Leaves out plain text from `position` up to a `<` or the block's end; stops skipping
        /// at `<` or at a byte libxml2 must see, and carries a character cut by the block end.
        func skipText() {
            let found = memchr(base + position, Int32(UInt8(ascii: "<")), count - position)
            let textEnd = found.map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? count
            let (plainEnd, stop) = ContentText.plainPrefix(of: bytes, position..<textEnd)
            position = plainEnd
            unfed = plainEnd
            switch stop {
            case .end:
                if found != nil { skippingText = false }
            case .odd:
                // libxml2 reads on from here (only reporting what it reads).
                skippingText = false
                if let found { position = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) } else { position = count }
            case .incomplete:
                carry = Array(bytes[plainEnd...])
                position = count
                unfed = count
            }
        }

        if skippingText { skipText() }
        if !carry.isEmpty { return }
        while position < count {
            if let element = inside {
                var stop = RawTextBypass.textStop(in: bytes, from: position, element: element)
                if stop.reason == .unusual {
                    // libxml2 skips a NUL that starts its input but reads one inside text as a
                    // space: it gets the character before the odd byte too.
                    stop.index = RawTextBypass.characterStart(before: stop.index, in: bytes, notBefore: position)
                }
                if stop.reason == .incomplete {
                    // The character before goes with the cut bytes: if the document ends here,
                    // libxml2 reads them together, as it would have (a lone last byte it drops).
                    stop.index = RawTextBypass.characterStart(before: stop.index, in: bytes, notBefore: position)
                }
                // The state keeps script text, and style text inside a title as libxml2 reports it.
                if stop.index > position { state.characters(UnsafeBufferPointer(rebasing: bytes[position..<stop.index])) }
                position = stop.index
                unfed = position
                switch stop.reason {
                case .endTag, .unusual:
                    // libxml2, still inside the element, reads on from here.
                    inside = nil
                case .incomplete:
                    carry = Array(bytes[position...])
                    return
                case .end:
                    return
                }
                continue
            }
            guard let found = memchr(base + position, Int32(UInt8(ascii: "<")), count - position) else { break }
            let open = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            position = open
            guard open + 1 < count else {
                flush(to: open)
                carry = [UInt8(ascii: "<")]
                return
            }
            let next = bytes[open + 1]
            if StartTagReader.isASCIILetter(next) {
                switch StartTagReader.read(bytes, at: open) {
                case .incomplete:
                    guard count - open <= Self.maxCarriedTag else { position = count; continue }
                    flush(to: open)
                    carry = Array(bytes[open...])
                    return
                case .tag(let tag):
                    position = tag.end
                    if tag.isPlain {
                        // Without the attributes the scanner does not read.
                        flush(to: open)
                        if ask().readsStartTagsAfresh {
                            feedThinned(bytes, tag, keeping: Tag(named: bytes, tag.name)?.readAttributes ?? [])
                            unfed = tag.end
                        }
                    }
                    if StartTagReader.name(bytes, tag.name, is: "script") || StartTagReader.name(bytes, tag.name, is: "style") {
                        // libxml2 says whether its text follows (not after `<script/>`, say).
                        flush(to: position)
                        if case .rawText(let element) = ask() {
                            inside = element
                            continue
                        }
                    }
                    afterMarkup()
                }
            } else if next == UInt8(ascii: "/") || next == UInt8(ascii: "!") || next == UInt8(ascii: "?") {
                // An end tag, comment, doctype or processing instruction: libxml2 reads it.
                var end: Int?
                if next == UInt8(ascii: "!"), open + 3 < count, bytes[open + 2] == UInt8(ascii: "-"), bytes[open + 3] == UInt8(ascii: "-") {
                    end = Self.commentEnd(bytes, from: open + 4)
                } else {
                    // Through a NUL that ends it: libxml2 skips that NUL next, and a chunk
                    // starting with one would not read the same inside a script.
                    end = Self.markupEnd(bytes, from: open + 2)
                }
                // Cut by the block end: libxml2 gets it as it is and waits for the rest.
                position = end ?? count
                afterMarkup()
            } else {
                // `<` that starts no markup is text to libxml2.
                position = open + 1
            }
        }
        flush(to: count)
    }

    /// Feeds a plain start tag with only the attributes named in `kept` (any case), each as
    /// written: `<name>` for an element the scanner does not read.
    private func feedThinned(_ bytes: UnsafeBufferPointer<UInt8>, _ tag: StartTagReader.StartTag, keeping kept: [StaticString]) {
        tagBuffer.removeAll(keepingCapacity: true)
        tagBuffer.append(UInt8(ascii: "<"))
        tagBuffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[tag.name]))
        if !kept.isEmpty {
            StartTagReader.forEachAttribute(of: tag, in: bytes) { name, attribute in
                guard kept.contains(where: { StartTagReader.name(bytes, name, is: $0) }) else { return }
                tagBuffer.append(UInt8(ascii: " "))
                tagBuffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[attribute]))
            }
        }
        // A blank before `/>`: after an unquoted value, `/` would be read as part of it.
        if tag.selfClosing { tagBuffer.append(contentsOf: [UInt8(ascii: " "), UInt8(ascii: "/")]) }
        tagBuffer.append(UInt8(ascii: ">"))
        tagBuffer.withUnsafeBufferPointer(parse)
    }

    /// The index after the `-->` (or `--!>`) that ends a comment whose text starts at `start`
    /// (after `<!--`), as `htmlParseComment` reads it, if in `bytes`.
    private static func commentEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        let dash = UInt8(ascii: "-")
        var i = start
        while let close = markupEnd(bytes, from: i) {
            // A NUL ends libxml2's reading of the comment, unfinished (and is skipped next).
            if bytes[close - 1] == 0 { return close }
            let gt = close - 1
            if gt >= start + 2, bytes[gt - 1] == dash, bytes[gt - 2] == dash { return close }
            if gt >= start + 3, bytes[gt - 1] == UInt8(ascii: "!"), bytes[gt - 2] == dash, bytes[gt - 3] == dash { return close }
            i = close
        }
        return nil
    }

    /// The index after the first `>` or NUL from `start` (libxml2 reads an end tag or a
    /// processing instruction up to either), if in `bytes`.
    private static func markupEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress, start < bytes.count else { return nil }
        var i = start
        let raw = UnsafeRawPointer(base)
        // Eight bytes at a time while none is `>` or NUL.
        while i + 8 <= bytes.count {
            let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if ByteWord.contains(word, UInt8(ascii: ">")) || ByteWord.zeroBytes(word) != 0 { break }
            i += 8
        }
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: ">") || c == 0 { return i + 1 }
            i += 1
        }
        return nil
    }

    /// Hands bytes to libxml2.
    private func parse(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, bytes.count > 0, failure == nil else { return }
        fedSinceAsked = true
        // htmlParseChunk takes an Int32 size: feed huge buffers in slices.
        var offset = 0
        while offset < bytes.count, failure == nil {
            let size = min(bytes.count - offset, 1 << 24)
            let result = base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                htmlParseChunk(context, $0 + offset, Int32(size), 0)
            }
            failure = LibXML2.chunkFailure(result)
            offset += size
        }
    }

    /// Whatever waited for more bytes is libxml2's to read as it would have.
    private func parseCarry() {
        guard !carry.isEmpty else { return }
        let rest = carry
        carry = []
        rest.withUnsafeBufferPointer(parse)
    }

    func finish() {
        parseCarry()
        guard failure == nil else { return }
        failure = LibXML2.chunkFailure(htmlParseChunk(context, nil, 0, 1))
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
