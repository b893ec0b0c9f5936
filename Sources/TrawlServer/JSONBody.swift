import Foundation
import TrawlCore

/// The one JSON encoding every answer uses: sorted keys and unescaped slashes, as the `trawl`
/// command prints JSON, so an API answer and a CLI line compare byte for byte.
enum JSONBody {
    static func encode(_ value: some Encodable) -> [UInt8] {
        Array(TrawlJSON.lineData(value))
    }
}
