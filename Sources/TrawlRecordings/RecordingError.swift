import Foundation
public import TrawlCore

/// A recording that cannot be read, a replay with no matching entry, or a case that is not
/// well formed. Modelled on AsyncHTTPClient's errors: one struct, a code to switch on, and a
/// message that names the file or request.
public struct RecordingError: ErrorWithCodes {
    public struct Code: ErrorCode {
        public typealias Failure = RecordingError
        let name: String
        public var description: String { name }
        /// The stable code JSON output carries: `recording-unreadable`, `invalid-har`,
        /// `no-recorded-entry`, `bad-recorded-entry`, `invalid-case`.
        public var identifier: String {
            switch name {
            case "unreadable": "recording-unreadable"
            case "no matching entry": "no-recorded-entry"
            case "bad entry": "bad-recorded-entry"
            default: name.lowercased().replacingOccurrences(of: " ", with: "-")
            }
        }

        /// The file could not be read.
        public static let unreadable = Code(name: "unreadable")
        /// The file is not a HAR 1.2 archive.
        public static let invalidHAR = Code(name: "invalid HAR")
        /// A replay had no entry for a request.
        public static let noMatchingEntry = Code(name: "no matching entry")
        /// A recorded entry's body cannot be decoded (bad base64).
        public static let badEntry = Code(name: "bad entry")
        /// A `.case.json` file is malformed.
        public static let invalidCase = Code(name: "invalid case")
    }

    public var code: Code
    /// The file, or for a replay miss the request (`GET https://…`).
    public var subject: String
    public var message: String
    /// For a replay miss: the recorded URLs closest to the request.
    public var closest: [String]
    /// What failed beneath (the file system's error for an unreadable file).
    public var underlying: UnderlyingError?

    public init(_ code: Code, file subject: String, _ message: String, closest: [String] = [], underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.subject = subject
        self.message = message
        self.closest = closest
        self.underlying = underlying.map(UnderlyingError.init)
    }

    public var description: String {
        var text = "\(subject): \(code): \(message)"
        if !closest.isEmpty { text += "; closest recorded: " + closest.joined(separator: ", ") }
        return Redaction.text(text)
    }

    /// A decoding error as a path and a reason (`log.entries[3].response.status: missing`); a
    /// file that is not JSON at all says so, not Foundation's `The given data was not valid JSON`.
    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])): missing"
        // In words: the context's own text names Swift types (`Expected to decode Array<Any>`).
        case .typeMismatch(let type, let context): return "\(path(context.codingPath)): not \(ErrorSentence.kind(of: type))"
        case .valueNotFound(let type, let context): return "\(path(context.codingPath)): missing (\(ErrorSentence.kind(of: type)) expected)"
        case .dataCorrupted(let context) where context.codingPath.isEmpty: return ErrorSentence.describe(error)
        case .dataCorrupted(let context): return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: return ErrorSentence.describe(error)
        }
    }
}
