/// Decides which character set to read a document in.
///
/// Order: a byte-order mark, then the HTTP header, then `<meta charset>` / `<meta http-equiv>`
/// in the first 4 KiB, then UTF-8. A declared legacy charset loses to UTF-8 when the bytes are
/// valid UTF-8 with non-ASCII in them: pages saved by browsers keep the old `<meta>` but hold
/// UTF-8, and reading them as windows-1251 or gb2312 would mangle every non-ASCII character.
public struct Charset: Sendable, Hashable {
    public enum Source: String, Sendable, Hashable {
        case byteOrderMark = "bom", header, meta, utf8Bytes = "utf-8 bytes", fallback
    }

    /// The encoding name to read with, lower-case (`utf-8`, `windows-1251`).
    public var name: String
    public var source: Source
    /// Bytes to skip at the start (a byte-order mark).
    public var skip: Int

    public var isUTF8: Bool { name == "utf-8" }

    /// Bytes of UTF-8 evidence read after the first non-ASCII byte.
    static let evidenceWindow = 1024
    /// Bytes searched for `<meta charset>`.
    static let metaWindow = 4096
    /// How far an ASCII start is read for the first byte that tells UTF-8 from a legacy charset.
    static let asciiWindow = 1 << 20

    /// Decides from the first bytes of a document, or returns `nil` when it needs more of them.
    ///
    /// The decision reads at most ``metaWindow`` bytes for a `<meta>` and ``evidenceWindow``
    /// bytes after the first non-ASCII byte, so a document read in one piece and the same
    /// document fed in small chunks decide alike.
    /// - Parameters:
    ///   - bytes: the document so far.
    ///   - header: the charset of the `Content-Type` header.
    ///   - isComplete: whether `bytes` is the whole document.
    public static func detect(_ bytes: UnsafeBufferPointer<UInt8>, declared header: String?, isComplete: Bool) -> Charset? {
        if bytes.count < 3 && !isComplete { return nil }
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            return Charset(name: "utf-8", source: .byteOrderMark, skip: 3)
        }
        if bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == 0xFE { return Charset(name: "utf-16le", source: .byteOrderMark, skip: 2) }
        if bytes.count >= 2, bytes[0] == 0xFE, bytes[1] == 0xFF { return Charset(name: "utf-16be", source: .byteOrderMark, skip: 2) }

        let declared: (String, Source)?
        if let header {
            declared = (normalize(header), .header)
        } else {
            if bytes.count < metaWindow && !isComplete { return nil }
            declared = metaCharset(UnsafeBufferPointer(rebasing: bytes.prefix(metaWindow))).map { (normalize($0), .meta) }
        }
        if let (name, source) = declared, name == "utf-8" { return Charset(name: name, source: source, skip: 0) }

        // A legacy (or missing) declaration: look at the bytes.
        guard let evidence = utf8Evidence(bytes, isComplete: isComplete) else { return nil }
        switch (evidence, declared) {
        case (.asciiOnly, let declared?): return Charset(name: declared.0, source: declared.1, skip: 0)
        case (.asciiOnly, nil): return Charset(name: "utf-8", source: .fallback, skip: 0)
        case (.validUTF8, _): return Charset(name: "utf-8", source: .utf8Bytes, skip: 0)
        case (.notUTF8, let declared?): return Charset(name: declared.0, source: declared.1, skip: 0)
        // No declaration and not UTF-8: what browsers assume.
        case (.notUTF8, nil): return Charset(name: "windows-1252", source: .fallback, skip: 0)
        }
    }

    enum Evidence { case asciiOnly, validUTF8, notUTF8 }

    /// Whether the bytes after the first non-ASCII byte are UTF-8; `nil` if more bytes are needed.
    static func utf8Evidence(_ bytes: UnsafeBufferPointer<UInt8>, isComplete: Bool) -> Evidence? {
        // A start that is ASCII for `asciiWindow` bytes decides as a wholly ASCII document does:
        // a document arriving in pieces is then read as it comes, not held until its end (or
        // its first non-ASCII byte) to be sure.
        guard let first = bytes.prefix(asciiWindow).firstIndex(where: { $0 >= 0x80 }) else {
            return isComplete || bytes.count >= asciiWindow ? .asciiOnly : nil
        }
        let end = first + evidenceWindow
        if end > bytes.count && !isComplete { return nil }
        var window = UnsafeBufferPointer(rebasing: bytes[first..<min(end, bytes.count)])
        // A window cut mid-character: drop the partial character at its end.
        if end <= bytes.count {
            var cut = window.count
            var back = 0
            while cut > 0, back < 4, window[cut - 1] & 0xC0 == 0x80 { cut -= 1; back += 1 }
            if cut > 0, window[cut - 1] >= 0xC0 { cut -= 1 }
            window = UnsafeBufferPointer(rebasing: window[0..<cut])
        }
        return isValidUTF8(window) ? .validUTF8 : .notUTF8
    }

    /// Folds aliases browsers treat as one (`latin1`, `iso-8859-1`, `ascii` → windows-1252).
    static func normalize(_ raw: String) -> String {
        let name = raw.trimmingCharacters(in: .init(charactersIn: " \t\"'")).lowercased()
        switch name {
        case "utf8", "unicode-1-1-utf-8", "utf-8": return "utf-8"
        case "latin1", "iso-8859-1", "iso8859-1", "l1", "ascii", "us-ascii", "cp1252", "x-cp1252": return "windows-1252"
        case "gb2312", "gbk", "x-gbk", "csgb2312": return "gbk"
        case "shift-jis", "sjis", "x-sjis", "ms_kanji": return "shift_jis"
        default: return name
        }
    }

    /// A charset named by `<meta charset=…>` or `content="…; charset=…"` in `head`.
    static func metaCharset(_ head: UnsafeBufferPointer<UInt8>) -> String? {
        let needle = Array("charset".utf8)
        var i = 0
        while i + needle.count < head.count {
            var match = true
            for k in 0..<needle.count where head[i + k] | 0x20 != needle[k] { match = false; break }
            if match {
                var j = i + needle.count
                while j < head.count, head[j] == 0x20 { j += 1 }
                if j < head.count, head[j] == UInt8(ascii: "=") {
                    j += 1
                    while j < head.count, head[j] == 0x20 || head[j] == UInt8(ascii: "\"") || head[j] == UInt8(ascii: "'") { j += 1 }
                    var end = j
                    while end < head.count, isNameByte(head[end]) { end += 1 }
                    if end > j { return String(decoding: UnsafeBufferPointer(rebasing: head[j..<end]), as: UTF8.self) }
                }
            }
            i += 1
        }
        return nil
    }

    private static func isNameByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == UInt8(ascii: "-")
            || c == UInt8(ascii: "_") || c == UInt8(ascii: ":") || c == UInt8(ascii: ".")
    }

    /// Whether the bytes are well-formed UTF-8. Runs of ASCII go eight bytes at a time.
    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let n = bytes.count
        var i = 0
        while i < n {
            if i + 8 <= n, UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
                continue
            }
            let c = base[i]
            if c < 0x80 { i += 1; continue }
            let length: Int
            if c & 0xE0 == 0xC0 {
                length = 2; if c < 0xC2 { return false }
            } else if c & 0xF0 == 0xE0 {
                length = 3
            } else if c & 0xF8 == 0xF0 {
                length = 4; if c > 0xF4 { return false }
            } else {
                return false
            }
            guard i + length <= n else { return false }
            for k in 1..<length where base[i + k] & 0xC0 != 0x80 { return false }
            if length == 3 {
                let v = (UInt32(c & 0x0F) << 12) | (UInt32(base[i + 1] & 0x3F) << 6)
                if v < 0x800 || (v >= 0xD800 && v < 0xE000) { return false }
            } else if length == 4 {
                let v = (UInt32(c & 0x07) << 18) | (UInt32(base[i + 1] & 0x3F) << 12)
                if v < 0x10000 || v > 0x10FFFF { return false }
            }
            i += length
        }
        return true
    }
}
