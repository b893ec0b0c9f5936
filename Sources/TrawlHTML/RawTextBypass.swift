import Glibc

/// The text of `<script>` and `<style>` elements, read without libxml2 (part of
/// ``PushParser``'s thinned feed).
///
/// libxml2 reads a script one character at a time, and script and style text is about half of
/// a modern page's bytes; the scanner only wants script text as it is, and style text not at
/// all. When libxml2, having read all it was given, says it is inside such an element's text
/// (``PushState/rawText(_:)``), the text up to the closing tag is found with a byte search
/// and libxml2 is fed again from `</script`. libxml2 decides what is a script (comments,
/// `<script/>`, odd attributes and every other corner stay its call).
///
/// Only for UTF-8 input, whose bytes libxml2 would pass through unchanged. Text libxml2 would
/// change (control characters it drops, invalid UTF-8 that makes it switch to Latin-1, U+FFFE)
/// is left to libxml2 from that byte on.
enum RawTextBypass {
    /// A raw-text element libxml2 can be inside.
    enum Element: Int32 {
        case script = 1
        case style = 2

        var name: StaticString {
            switch self {
            case .script: "script"
            case .style: "style"
            }
        }
    }

    /// Where an element's text stops being the bypass's to read.
    struct TextStop: Equatable {
        enum Reason: Equatable {
            /// `</script` (any case) starts here: libxml2 reads the end tag.
            case endTag
            /// A byte libxml2 would not pass through unchanged: libxml2 reads on from it.
            case unusual
            /// The bytes from here might be an end tag or a character cut by the block end.
            case incomplete
            /// Every byte is text.
            case end
        }
        var index: Int
        var reason: Reason
    }

    /// Reads `element`'s text in `bytes` from `start`: every byte before the returned index
    /// is text libxml2 would have passed on as it is.
    static func textStop(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, element: Element) -> TextStop {
        let count = bytes.count
        var i = start
        let raw = UnsafeRawPointer(bytes.baseAddress)
        while i < count {
            // Eight bytes at a time while none is `<`, a control character or non-ASCII.
            if let raw, i + 8 <= count {
                let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if !hasSpecialByte(word) { i += 8; continue }
            }
            let c = bytes[i]
            if c == UInt8(ascii: "<") {
                guard i + 1 < count else { return TextStop(index: i, reason: .incomplete) }
                if bytes[i + 1] == UInt8(ascii: "/") {
                    // libxml2 (recovering) ends the text at `</` plus the element's name as a prefix.
                    switch matches(element.name, in: bytes, at: i + 2) {
                    case .yes: return TextStop(index: i, reason: .endTag)
                    case .incomplete: return TextStop(index: i, reason: .incomplete)
                    case .no: break
                    }
                }
                i += 1
            } else if c < 0x80 {
                if c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D { return TextStop(index: i, reason: .unusual) }
                i += 1
            } else {
                switch utf8Length(bytes, at: i) {
                case .valid(let length): i += length
                case .incomplete: return TextStop(index: i, reason: .incomplete)
                case .invalid: return TextStop(index: i, reason: .unusual)
                }
            }
        }
        return TextStop(index: count, reason: .end)
    }

    private enum NameMatch { case yes(Int), no, incomplete }

    /// Case-insensitive match of an ASCII name.
    private static func matches(_ name: StaticString, in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> NameMatch {
        let wanted = name.utf8Start
        let length = name.utf8CodeUnitCount
        for k in 0..<length {
            guard index + k < bytes.count else { return .incomplete }
            if bytes[index + k] | 0x20 != wanted[k] { return .no }
        }
        return .yes(index + length)
    }

    /// Whether any of the eight bytes is `<`, below 0x20 or 0x80 and above.
    @inline(__always)
    static func hasSpecialByte(_ word: UInt64) -> Bool {
        ByteWord.hasControlOrNonASCII(word) || ByteWord.contains(word, UInt8(ascii: "<"))
    }

    /// The start of the character that ends just before `index` (`index` itself when it is
    /// `floor`): the bytes before `index` are known to be well-formed UTF-8.
    static func characterStart(before index: Int, in bytes: UnsafeBufferPointer<UInt8>, notBefore floor: Int) -> Int {
        guard index > floor else { return floor }
        var start = index - 1
        while start > floor, bytes[start] & 0xC0 == 0x80 { start -= 1 }
        return start
    }

    enum Sequence { case valid(Int), incomplete, invalid }

    /// A well-formed UTF-8 sequence at `index` that libxml2 counts as a character (not U+FFFE
    /// or U+FFFF).
    static func utf8Length(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Sequence {
        let lead = bytes[index]
        let length: Int
        let minimum: UInt32
        var value: UInt32
        switch lead {
        case 0xC2...0xDF: length = 2; minimum = 0x80; value = UInt32(lead & 0x1F)
        case 0xE0...0xEF: length = 3; minimum = 0x800; value = UInt32(lead & 0x0F)
        case 0xF0...0xF4: length = 4; minimum = 0x10000; value = UInt32(lead & 0x07)
        default: return .invalid
        }
        for k in 1..<length {
            guard index + k < bytes.count else { return .incomplete }
            let next = bytes[index + k]
            guard next & 0xC0 == 0x80 else { return .invalid }
            value = value << 6 | UInt32(next & 0x3F)
        }
        guard value >= minimum, value <= 0x10FFFF, !(0xD800...0xDFFF).contains(value), value != 0xFFFE, value != 0xFFFF else {
            return .invalid
        }
        return .valid(length)
    }
}
