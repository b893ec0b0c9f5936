/// Whitespace trimming without a trip through `NSString`.
///
/// Foundation's `trimmingCharacters(in:)` bridges to `NSString` and walks UTF-16; on the hot
/// paths (every URL a parser resolves, every attribute the scanner reads) that bridge cost more
/// than the rest of the work. This trims the same set — Unicode space separators, line and
/// paragraph separators, U+0009–U+000D, U+0085 and U+200B — on Unicode scalars.
extension StringProtocol {
    /// The text without leading and trailing whitespace and newlines.
    public var trimmedWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isTrimmableWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.isTrimmableWhitespace })!
        return String(self[first..<scalars.index(after: last)])
    }
}

extension Unicode.Scalar {
    /// Whether `trimmedWhitespace` drops this scalar: the set of `CharacterSet.whitespacesAndNewlines`.
    @inlinable
    var isTrimmableWhitespace: Bool {
        if value < 0x80 { return value == 0x20 || (value >= 0x09 && value <= 0x0D) }
        // U+200B: Foundation on Linux still counts ZERO WIDTH SPACE as whitespace.
        if value == 0x85 || value == 0x200B { return true }
        switch properties.generalCategory {
        case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }
}
