/// Keeps secrets out of messages and recordings.
public enum Redaction {
    /// Query parameters whose values are secrets.
    public static let secretQueryParameters: Set<String> = [
        "api_key", "apikey", "key", "token", "access_token", "auth", "signature", "sig", "client_secret", "password",
    ]
    /// The value that stands in for a secret.
    public static let placeholder = "REDACTED"

    /// `url` with the values of secret query parameters (and any user:password) replaced.
    public static func url(_ url: String, extraParameters: Set<String> = []) -> String {
        var result = url
        if let schemeEnd = result.range(of: "://"),
           let at = result[schemeEnd.upperBound...].prefix(while: { $0 != "/" && $0 != "?" }).firstIndex(of: "@") {
            result.replaceSubrange(schemeEnd.upperBound..<at, with: placeholder)
        }
        guard let q = result.firstIndex(of: "?") else { return result }
        let names = secretQueryParameters.union(extraParameters)
        let head = result[...q]
        var rest = Substring(result[result.index(after: q)...])
        var fragment = ""
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[hash...])
            rest = rest[..<hash]
        }
        let pairs = rest.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let eq = pair.firstIndex(of: "=") else { return String(pair) }
            let name = pair[..<eq].lowercased()
            return names.contains(name) ? "\(pair[..<eq])=\(placeholder)" : String(pair)
        }
        return head + pairs.joined(separator: "&") + fragment
    }
}
