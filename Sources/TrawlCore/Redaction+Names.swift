extension Redaction {
    /// Whether a query parameter or a header called `name` with `value` holds a secret: its
    /// name says so (``isSecretName(_:)``) or its value looks like a credential whatever it is
    /// called (``looksLikeCredential(_:)``).
    ///
    /// The one decision behind every redaction: messages (``text(_:extraParameters:)``, every
    /// error's description) and recordings (TrawlRecordings' `Scrubber`) both ask it.
    public static func isSecret(name: some StringProtocol, value: some StringProtocol) -> Bool {
        isSecretName(name) || looksLikeCredential(value)
    }

    /// Whether a query parameter or header called `name` holds a secret, by the words of its
    /// name rather than a list of names.
    ///
    /// The name is cut into words at anything not a letter or digit and where lower case turns
    /// upper (`X-Amz-Signature` → `x amz signature`, `accessToken` → `access token`). It is a
    /// secret when a word contains `token`, `secret`, `signature`, `credential`, `password`,
    /// `passwd`, `session` or `sessid`, or is `key`, `auth`, `sig`, `pwd`, `pass` or `verifier`
    /// (alone or run together with a qualifier: `apikey`, `accesskey`, `authkey`; `authorization`),
    /// or when the whole name is `code` (an OAuth 2 authorization code) or `sid`. That covers
    /// AWS (`X-Amz-Signature`, `X-Amz-Credential`, `X-Amz-Security-Token`), Google Cloud Storage
    /// (`X-Goog-Signature`, `X-Goog-Credential`), Azure SAS (`sig`), OAuth 1 (`oauth_signature`,
    /// `oauth_token`, `oauth_verifier`) and OAuth 2 (`access_token`, `refresh_token`,
    /// `id_token`, `code`) signed URLs and callbacks. Words are whole so that `author`,
    /// `keyword` and `design` stay readable. CORS headers (`Access-Control-Allow-Credentials`)
    /// describe the answer and hold nothing secret.
    public static func isSecretName(_ name: some StringProtocol) -> Bool {
        let lower = name.lowercased()
        if exactSecretNames.contains(lower) { return true }
        if lower.hasPrefix("access-control-") { return false }
        return words(of: name).contains(where: isSecretWord)
    }

    /// Whole names that are secrets though their words are not.
    static let exactSecretNames: Set<String> = ["code", "sid"]
    /// A word containing one of these is a secret's.
    static let secretStems = ["token", "secret", "signature", "credential", "password", "passwd", "session", "sessid"]
    /// A word that is one of these (or one of them after a qualifier) is a secret's.
    static let secretWords: Set<String> = ["key", "auth", "sig", "pwd", "pass", "verifier"]
    /// What runs together with a secret word in one: `apikey`, `accesskey`. (`oauth` is a
    /// namespace: `oauth_timestamp` is no secret, `oauth_signature` is by its own word.)
    static let qualifiers = [
        "api", "access", "secret", "private", "client", "app", "master", "sub", "subscription", "shared", "account", "license",
        "signing", "session", "auth", "x",
    ]

    static func isSecretWord(_ word: String) -> Bool {
        if secretStems.contains(where: word.contains) { return true }
        if secretWords.contains(word) { return true }
        if word.hasPrefix("authoriz") || word.hasPrefix("authoris") || word.hasPrefix("authentic") { return true }
        return secretWords.contains { secret in
            word.hasSuffix(secret) && qualifiers.contains(String(word.dropLast(secret.count)))
        }
    }

    /// `X-Amz-Signature` → `["x", "amz", "signature"]`, `accessToken` → `["access", "token"]`.
    static func words(of name: some StringProtocol) -> [String] {
        var words: [String] = []
        var current = ""
        var previousWasLower = false
        for character in name {
            guard character.isLetter || character.isNumber else {
                if !current.isEmpty { words.append(current) }
                current = ""
                previousWasLower = false
                continue
            }
            if character.isUppercase, previousWasLower, !current.isEmpty {
                words.append(current)
                current = ""
            }
            current += character.lowercased()
            previousWasLower = character.isLowercase || character.isNumber
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// Whether `value` looks like a credential whatever it is called: `Bearer …` or `Basic …`
    /// (also percent- or form-encoded), a JSON Web Token (`eyJ….….…`), or a key in a
    /// well-known issuer's format (GitHub `ghp_…`, GitLab `glpat-…`, Slack `xoxb-…`, Stripe
    /// `sk_live_…`, AWS `AKIA…`, Google `AIza…`).
    public static func looksLikeCredential(_ value: some StringProtocol) -> Bool {
        let text = String(value)
        let lower = text.lowercased()
        for scheme in ["bearer", "basic"] {
            for separator in [" ", "+", "%20"] where lower.hasPrefix(scheme + separator) && lower.count > scheme.count + separator.count + 3 {
                return true
            }
        }
        if isJSONWebToken(text) { return true }
        for prefix in ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xoxb-", "xoxp-", "xoxa-", "xoxs-", "sk_live_", "rk_live_"]
        where text.hasPrefix(prefix) && text.count >= prefix.count + 16 {
            return true
        }
        let utf8 = Array(text.utf8)
        let isUpperOrDigit = { (byte: UInt8) in (0x41...0x5A).contains(byte) || (0x30...0x39).contains(byte) }
        if utf8.count == 20, text.hasPrefix("AKIA") || text.hasPrefix("ASIA"), utf8.allSatisfy(isUpperOrDigit) { return true }
        if utf8.count == 39, text.hasPrefix("AIza"), utf8.allSatisfy(isTokenByte) { return true }
        return false
    }

    /// `eyJ…` (a base64url JSON object) then two more base64url segments.
    static func isJSONWebToken(_ text: String) -> Bool {
        guard text.hasPrefix("eyJ") else { return false }
        let segments = text.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, segments[0].count >= 10, segments[1].count >= 2 else { return false }
        return segments.allSatisfy { $0.utf8.allSatisfy(isTokenByte) }
    }

    /// Base64url and the characters tokens are written in.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "_")
    }
}
