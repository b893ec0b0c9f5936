/// Text between tags, for ``PushParser``'s thinned feed: libxml2 (2.9) only reports such text
/// (the scanner ignores it outside `<title>`), unless the text is not blank and the open
/// element is `html` or `head` (it then opens an implied `<p>`), or it holds a byte libxml2
/// reacts to: a NUL can end its parse, invalid UTF-8 switches it to Latin-1, other control
/// characters and U+FFFE/U+FFFF are reported as errors.
enum ContentText {
    enum Kind: Equatable {
        /// Only space, tab, CR and LF.
        case blank
        /// Printable ASCII, blanks and well-formed UTF-8.
        case plain
        /// A byte libxml2 reacts to.
        case odd
    }

    /// What the text in `bytes[range]` is.
    static func kind(of bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Kind {
        var blank = true
        var i = range.lowerBound
        let end = range.upperBound
        let raw = UnsafeRawPointer(bytes.baseAddress)
        while i < end {
            // Eight bytes at a time while none is a control character or non-ASCII (`<` does
            // not occur in a run); a word of spaces stays blank.
            if let raw, i + 8 <= end {
                let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if !RawTextBypass.hasSpecialByte(word) {
                    if blank && word != 0x2020_2020_2020_2020 { blank = false }
                    i += 8
                    continue
                }
            }
            let c = bytes[i]
            if c < 0x80 {
                if StartTagReader.isBlank(c) {
                    i += 1
                } else if c < 0x20 {
                    return .odd
                } else {
                    blank = false
                    i += 1
                }
            } else {
                guard case .valid(let length) = RawTextBypass.utf8Length(bytes, at: i), i + length <= end else { return .odd }
                blank = false
                i += length
            }
        }
        return blank ? .blank : .plain
    }

    /// Where the plain text (printable ASCII, blanks, well-formed UTF-8) in `bytes[range]`
    /// stops, and why: for text that runs past the end of a block, read as it arrives.
    enum PrefixStop: Equatable { case end, odd, incomplete }

    static func plainPrefix(of bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> (end: Int, stop: PrefixStop) {
        var i = range.lowerBound
        let end = range.upperBound
        let raw = UnsafeRawPointer(bytes.baseAddress)
        while i < end {
            if let raw, i + 8 <= end, !RawTextBypass.hasSpecialByte(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) {
                i += 8
                continue
            }
            let c = bytes[i]
            if c < 0x80 {
                // `<` ends a run before it gets here.
                guard c >= 0x20 || StartTagReader.isBlank(c) else { return (i, .odd) }
                i += 1
            } else {
                switch RawTextBypass.utf8Length(UnsafeBufferPointer(rebasing: bytes[..<end]), at: i) {
                case .valid(let length): i += length
                case .incomplete: return (i, .incomplete)
                case .invalid: return (i, .odd)
                }
            }
        }
        return (end, .end)
    }
}
