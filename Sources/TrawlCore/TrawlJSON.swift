public import Foundation

/// The JSON Trawl writes, everywhere it writes it: keys sorted (the same value always gives the
/// same bytes, and a re-written file diffs line by line) and slashes left as they are (URLs stay
/// readable).
public enum TrawlJSON {
    /// An encoder for the project's JSON; `pretty` for files people read and diff (recordings,
    /// case files, reports).
    public static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// `value` as one line of JSON, without a newline. For values made of strings, numbers,
    /// booleans and arrays of them, which cannot fail to encode; were one to fail, the line is
    /// `{}`, still valid JSON.
    public static func line(_ value: some Encodable) -> String {
        String(decoding: lineData(value), as: UTF8.self)
    }

    /// ``line(_:)`` as bytes.
    public static func lineData(_ value: some Encodable) -> Data {
        (try? encoder().encode(value)) ?? Data("{}".utf8)
    }
}
