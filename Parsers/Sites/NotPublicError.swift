import Foundation
package import TrawlCore

/// The page shows its media only to people logged in, and nothing of it is public: not its
/// metadata, not its embed. Code `not-public`.
///
/// A site parser that sees such a page (Instagram's and Facebook's login walls) says so with
/// ``note(parser:)`` in a definitive, empty result; the resolve ends with this error when
/// nothing else on the page answers.
package struct NotPublicError: Error, Sendable, Hashable, CustomStringConvertible {
    package var url: String
    /// The parser that read the page.
    package var site: String

    package init(url: String, site: String) {
        self.url = url
        self.site = site
    }

    package var description: String {
        "nothing at \(Redaction.url(url)) is public: its media are shown only to people logged in (\(site))"
    }

    static let prefix = "not public: "

    /// The diagnostic a site parser adds to say its page is not public.
    static func note(parser: String, reason: String) -> Diagnostic {
        Diagnostic(.error, prefix + reason, source: parser)
    }

    package static func isNote(_ diagnostic: Diagnostic) -> Bool {
        diagnostic.level == .error && diagnostic.message.hasPrefix(prefix)
    }
}

extension NotPublicError: CodedError {
    package var errorCode: String { "not-public" }
}
