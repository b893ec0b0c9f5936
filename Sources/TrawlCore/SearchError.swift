/// Why the ``SearchProvider`` could not start a search.
public struct SearchError: ErrorWithCodes {
    /// What kind of failure; compare with the static members (`error.code == .unknownEngine`).
    public struct Code: ErrorCode {
        public typealias Failure = SearchError
        private enum Base: String, Sendable, Hashable {
            case unknownEngine, noDefaultEngine, emptyQuery, missingConfiguration, invalidRequest, invalidURL
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        public static let unknownEngine = Code(.unknownEngine)
        public static let noDefaultEngine = Code(.noDefaultEngine)
        public static let emptyQuery = Code(.emptyQuery)
        /// An API key or setting the engine needs is not set.
        public static let missingConfiguration = Code(.missingConfiguration)
        public static let invalidRequest = Code(.invalidRequest)
        /// The query looks like a URL or a local path but is not a URL Trawl can read: it is
        /// never sent to a search engine instead.
        public static let invalidURL = Code(.invalidURL)
        public var description: String { base.rawValue }
        /// The stable code JSON output carries: `invalid-url`, `unknown-engine`, …
        public var identifier: String {
            // A run of capitals is one word: `invalidURL` is `invalid-url`, not `invalid-u-r-l`.
            var previousWasUppercase = false
            return base.rawValue.reduce(into: "") { text, character in
                if character.isUppercase {
                    text += (previousWasUppercase ? "" : "-") + character.lowercased()
                } else {
                    text.append(character)
                }
                previousWasUppercase = character.isUppercase
            }
        }
    }

    public var code: Code
    /// A sentence for a person, naming the input.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { Redaction.text(message) }
}
