import Glibc

/// Reads a start tag the way libxml2's HTML parser (2.9) does, for ``PushParser``'s thinned
/// feed: where it ends, its name, and whether it is *plain*: written in a syntax whose every
/// byte libxml2 reads one way only, so that `<name>` (or `<name/>`) in its place gives the same
/// element, ends in the same place, and differs only in the attributes reported.
///
/// Plain is deliberately narrow (`htmlParseStartTag`, `htmlParseAttribute`,
/// `htmlParseAttValue`): blanks are space, tab, CR, LF (libxml2's; not form feed); names are an
/// ASCII letter then letters, digits, `:-_.`, under 100 bytes (libxml2 cuts longer ones);
/// attributes are separated by blanks, their values double- or single-quoted or unquoted (at
/// least one byte, no quote); every non-ASCII byte is well-formed UTF-8 and no control
/// character other than a blank occurs. Anything else is fed to libxml2 as it is written.
enum StartTagReader {
    /// A start tag found at a `<`.
    struct StartTag: Equatable {
        /// The element name as written (libxml2 lower-cases it).
        var name: Range<Int>
        /// The index after the tag: after its `>` (or `/>`), or after a NUL that ends it.
        var end: Int
        /// Plain syntax (see ``StartTagReader``): its attributes can be left out.
        var isPlain: Bool
        /// Ends with `/>` (libxml2 closes the element at once).
        var selfClosing: Bool
    }

    enum Read: Equatable {
        /// The tag is not complete in these bytes.
        case incomplete
        case tag(StartTag)
    }

    /// The start tag whose `<` is at `open`; the byte after it is an ASCII letter.
    ///
    /// Its end is where libxml2's `htmlParseStartTag` stops reading, followed step by step
    /// (attribute names, values to their closing quote or to a blank or `>`, bogus attributes
    /// skipped to a blank or `>`, a NUL ending everything), so that bytes are never cut into
    /// chunks inside a tag libxml2 is reading: it takes the end of its input for the end of a
    /// value. `.incomplete` until that end is in `bytes`.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, at open: Int) -> Read {
        let count = bytes.count
        let nameStart = open + 1
        var i = nameStart
        while i < count, isNameByte(bytes[i]) { i += 1 }
        guard i < count else { return .incomplete }
        let name = nameStart..<i
        // libxml2 reads 99 bytes of a name at most; the rest would be read as attributes.
        var plain = name.count < 100
        var sawBlank = skipBlanks(bytes, &i)
        while true {
            guard i < count else { return .incomplete }
            let c = bytes[i]
            if c == 0 {
                // libxml2 reads a NUL as the end of its input: the tag ends, unclosed, and the
                // NUL is skipped next (it goes in the same chunk).
                return .tag(StartTag(name: name, end: i + 1, isPlain: false, selfClosing: false))
            }
            if c == UInt8(ascii: ">") {
                return .tag(StartTag(name: name, end: i + 1, isPlain: plain, selfClosing: false))
            }
            if c == UInt8(ascii: "/") {
                guard i + 1 < count else { return .incomplete }
                if bytes[i + 1] == UInt8(ascii: ">") {
                    return .tag(StartTag(name: name, end: i + 2, isPlain: plain, selfClosing: true))
                }
            }
            // An attribute: plain ones follow a blank.
            if !sawBlank { plain = false }
            var blanksAfterName = false
            if isAttributeNameStart(c) {
                let attributeStart = i
                while i < count, isNameByte(bytes[i]) { i += 1 }
                if i - attributeStart >= 100 { plain = false }
                blanksAfterName = skipBlanks(bytes, &i)
                guard i < count else { return .incomplete }
                if bytes[i] == UInt8(ascii: "=") {
                    blanksAfterName = false
                    i += 1
                    _ = skipBlanks(bytes, &i)
                    guard i < count else { return .incomplete }
                    switch value(bytes, at: i) {
                    case .incomplete: return .incomplete
                    case .ends(let after, let ordinary):
                        plain = plain && ordinary
                        i = after
                    }
                }
            } else {
                // Not an attribute name: libxml2 skips to a blank or the tag's end.
                plain = false
                while i < count {
                    let b = bytes[i]
                    if b == 0 || isBlank(b) || b == UInt8(ascii: ">") { break }
                    if b == UInt8(ascii: "/"), i + 1 < count, bytes[i + 1] == UInt8(ascii: ">") { break }
                    i += 1
                }
            }
            sawBlank = skipBlanks(bytes, &i) || blanksAfterName
        }
    }

    /// Calls `body` with each attribute of a plain tag: its name and the whole attribute as
    /// written (`name`, `name=value`, `name = "value"`).
    static func forEachAttribute(of tag: StartTag, in bytes: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>, Range<Int>) -> Void) {
        precondition(tag.isPlain)
        var i = tag.name.upperBound
        while true {
            _ = skipBlanks(bytes, &i)
            let c = bytes[i]
            if c == UInt8(ascii: ">") || c == UInt8(ascii: "/") { return }
            let start = i
            while isNameByte(bytes[i]) { i += 1 }
            let name = start..<i
            var end = i
            _ = skipBlanks(bytes, &i)
            if bytes[i] == UInt8(ascii: "=") {
                i += 1
                _ = skipBlanks(bytes, &i)
                let quote = bytes[i]
                if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                    i += 1
                    while bytes[i] != quote { i += 1 }
                    i += 1
                } else {
                    while !isBlank(bytes[i]), bytes[i] != UInt8(ascii: ">") { i += 1 }
                }
                end = i
            } else {
                i = end
            }
            body(name, start..<end)
        }
    }

    /// Skips blanks; whether there were any.
    @inline(__always)
    private static func skipBlanks(_ bytes: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Bool {
        let start = i
        while i < bytes.count, isBlank(bytes[i]) { i += 1 }
        return i > start
    }

    private enum Value { case ends(Int, ordinary: Bool), incomplete }

    /// An attribute value starting at `index` (after `=` and blanks), read as
    /// `htmlParseAttValue` reads it: quoted to the same quote, or up to a blank or `>`; a NUL
    /// ends it either way. Ordinary: every character is read as it is, the value is not empty,
    /// and an unquoted one holds no quote.
    private static func value(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Value {
        let count = bytes.count
        let first = bytes[index]
        var ordinary = true
        var i = index
        if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
            i += 1
            // Most values are printable ASCII up to their quote: found with memchr, checked
            // eight bytes at a time. Any other byte goes to the character loop below.
            if let base = bytes.baseAddress, let found = memchr(base + i, Int32(first), count - i) {
                let close = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                let raw = UnsafeRawPointer(base)
                while i + 8 <= close, !ByteWord.hasControlOrNonASCII(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) { i += 8 }
                while i < close, bytes[i] >= 0x20, bytes[i] < 0x80 { i += 1 }
                if i == close { return .ends(close + 1, ordinary: true) }
            }
            while i < count {
                let c = bytes[i]
                if c == first { return .ends(i + 1, ordinary: ordinary) }
                if c == 0 { return .ends(i, ordinary: false) }
                switch character(bytes, at: i) {
                case .next(let next): i = next
                case .odd: ordinary = false; i += 1
                case .incomplete: return .incomplete
                }
            }
            return .incomplete
        }
        while i < count {
            let c = bytes[i]
            if c == 0 || isBlank(c) || c == UInt8(ascii: ">") { return .ends(i, ordinary: ordinary && i > index) }
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") { ordinary = false }
            switch character(bytes, at: i) {
            case .next(let next): i = next
            case .odd: ordinary = false; i += 1
            case .incomplete: return .incomplete
            }
        }
        return .incomplete
    }

    private enum Character { case next(Int), odd, incomplete }

    /// The character at `index`, when libxml2 reads it as it is: a blank, a printable ASCII
    /// byte, or a well-formed UTF-8 sequence of a character it accepts.
    @inline(__always)
    private static func character(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Character {
        let c = bytes[index]
        if c >= 0x20 && c < 0x80 { return .next(index + 1) }
        if c < 0x20 { return isBlank(c) ? .next(index + 1) : .odd }
        switch RawTextBypass.utf8Length(bytes, at: index) {
        case .valid(let length): return .next(index + length)
        case .incomplete: return .incomplete
        case .invalid: return .odd
        }
    }

    @inline(__always)
    static func isBlank(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D
    }

    @inline(__always)
    static func isASCIILetter(_ c: UInt8) -> Bool {
        (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z")
    }

    /// A byte of a name after its first (`htmlParseHTMLName`).
    @inline(__always)
    static func isNameByte(_ c: UInt8) -> Bool {
        isASCIILetter(c) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: ":")
            || c == UInt8(ascii: "-") || c == UInt8(ascii: "_") || c == UInt8(ascii: ".")
    }

    @inline(__always)
    private static func isAttributeNameStart(_ c: UInt8) -> Bool {
        isASCIILetter(c) || c == UInt8(ascii: "_") || c == UInt8(ascii: ":") || c == UInt8(ascii: ".")
    }

    /// Case-insensitive: the name in `range` equals `name` (lower-case ASCII).
    static func name(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, is name: StaticString) -> Bool {
        guard range.count == name.utf8CodeUnitCount else { return false }
        let wanted = name.utf8Start
        for k in 0..<range.count where bytes[range.lowerBound + k] | 0x20 != wanted[k] { return false }
        return true
    }
}
