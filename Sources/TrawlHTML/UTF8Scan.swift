/// Whether a block of a UTF-8 document is UTF-8 that libxml2 reads as it is. libxml2 switches
/// to Latin-1 for the rest of a document at the first sequence it cannot read, and from then on
/// the thinned feed's byte-level view no longer matches libxml2's: such a block and all after
/// it go to libxml2 as written (``PushParser``).
enum UTF8Scan {
    /// How `bytes` ends: nil when some sequence is not one ``RawTextBypass/utf8Length(_:at:)``
    /// accepts; otherwise how many bytes of a sequence cut by the end are still to come.
    /// `pending` continuation bytes, owed by the previous block, come first.
    static func validate(_ bytes: UnsafeBufferPointer<UInt8>, pending: Int) -> Int? {
        let count = bytes.count
        var i = 0
        // The rest of a sequence the previous block cut.
        while i < pending {
            guard i < count else { return pending - count }
            guard bytes[i] & 0xC0 == 0x80 else { return nil }
            i += 1
        }
        let raw = UnsafeRawPointer(bytes.baseAddress)
        while i < count {
            // ASCII 32 bytes at a time (most of a page), then 8.
            if let raw {
                while i + 32 <= count {
                    let any =
                        raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) | raw.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)
                        | raw.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self) | raw.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)
                    if ByteWord.hasNonASCII(any) { break }
                    i += 32
                }
                if i + 8 <= count, !ByteWord.hasNonASCII(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) {
                    i += 8
                    continue
                }
            }
            guard i < count else { break }
            if bytes[i] < 0x80 {
                i += 1
                continue
            }
            switch RawTextBypass.utf8Length(bytes, at: i) {
            case .valid(let length): i += length
            case .invalid: return nil
            case .incomplete:
                let lead = bytes[i]
                let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
                return length - (count - i)
            }
        }
        return 0
    }
}
