import Foundation

/// Resolves references the way a browser does, for the cases pages really contain.
public enum URLResolver {
    /// Resolves `reference` against `base`. Protocol-relative references (`//i.imgur.com/x.gif`)
    /// become https whatever the page's scheme: media CDNs serve https, and a result handed to
    /// an app should not downgrade. Returns `nil` for `javascript:`, `blob:`, `data:` and
    /// anything unparseable.
    public static func resolve(_ reference: String, base: String?) -> String? {
        let trimmed = reference.trimmedWhitespace
        guard !trimmed.isEmpty else { return nil }
        let lower = trimmed.prefix(11).lowercased()
        if lower.hasPrefix("javascript:") || lower.hasPrefix("blob:") || lower.hasPrefix("data:") || lower.hasPrefix("about:") {
            return nil
        }
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return trimmed }
        if trimmed.hasPrefix("//") { return "https:" + trimmed }
        // A base without a scheme resolves nothing (Foundation would return a relative string, even "").
        guard let base, let baseURL = URL(string: base), baseURL.scheme != nil else { return nil }
        let escaped = trimmed.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed.union(CharacterSet(charactersIn: "%#"))) ?? trimmed
        return URL(string: escaped, relativeTo: baseURL)?.absoluteURL.absoluteString
    }
}
