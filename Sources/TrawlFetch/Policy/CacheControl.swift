import Foundation

/// The directives of a `Cache-Control` field (RFC 9111 §5.2) that a private cache acts on.
struct CacheControl: Sendable, Hashable {
    var maxAge: Double?
    var noStore = false
    var noCache = false
    var mustRevalidate = false

    init(_ value: String?) {
        guard let value else { return }
        for directive in value.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = parts.first?.lowercased() else { continue }
            let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : nil
            switch name {
            case "max-age": maxAge = argument.flatMap(Double.init).map { max(0, $0) }
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "must-revalidate": mustRevalidate = true
            default: continue
            }
        }
    }
}
