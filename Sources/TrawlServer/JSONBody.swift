import Foundation

/// The one JSON encoding every answer uses: sorted keys and unescaped slashes, as the `trawl`
/// command prints JSON, so an API answer and a CLI line compare byte for byte.
enum JSONBody {
    static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Every body is made of strings, numbers, booleans and arrays of them: encoding cannot
        // fail, and if it ever did, an empty object is still valid JSON.
        guard let data = try? encoder.encode(value) else { return Array("{}".utf8) }
        return Array(data)
    }
}
