import Foundation

/// One sentence for a person about any error: Trawl's own errors say what they are; Foundation's
/// file and decoding errors, whose descriptions read `The operation couldn’t be completed.
/// (NSCocoaErrorDomain error 260.)`, are turned into sentences naming the file.
public enum ErrorSentence {
    /// A sentence describing `error`, with URLs' secrets redacted (``Redaction/text(_:extraParameters:)``).
    /// - Parameter subject: what the error concerns (a path or URL), named when the error does
    ///   not name it itself.
    public static func describe(_ error: any Error, subject: String? = nil) -> String {
        Redaction.text(unredacted(error, subject: subject))
    }

    private static func unredacted(_ error: any Error, subject: String?) -> String {
        if let decoding = error as? DecodingError { return decodingSentence(decoding, subject: subject) }
        let ns = error as NSError
        if ns.domain == NSCocoaErrorDomain || ns.domain == NSPOSIXErrorDomain {
            return fileSentence(ns, subject: subject)
        }
        let text = String(describing: error)
        return subject.map { text.contains($0) ? text : "\($0): \(text)" } ?? text
    }

    /// Why a file could not be read or written (`no such file or folder`), for a caller that
    /// names the file itself; any other error as ``describe(_:subject:)`` says it.
    public static func reason(_ error: any Error) -> String {
        let ns = error as NSError
        guard !(error is DecodingError), ns.domain == NSCocoaErrorDomain || ns.domain == NSPOSIXErrorDomain else {
            return describe(error)
        }
        return fileReason(ns)
    }

    private static func fileSentence(_ error: NSError, subject: String?) -> String {
        let path =
            (error.userInfo[NSFilePathErrorKey] as? String)
            ?? (error.userInfo[NSURLErrorKey] as? URL)?.path
            ?? subject ?? "the file"
        return "'\(path)': \(fileReason(error))"
    }

    private static func fileReason(_ error: NSError) -> String {
        let posix =
            (error.userInfo[NSUnderlyingErrorKey] as? NSError).flatMap { $0.domain == NSPOSIXErrorDomain ? Int32($0.code) : nil }
            ?? (error.domain == NSPOSIXErrorDomain ? Int32(error.code) : nil)
        let reason: String
        switch CocoaError.Code(rawValue: error.code) {
        case _ where posix != nil: reason = String(cString: strerror(posix!)).lowercased()
        case .fileReadNoSuchFile, .fileNoSuchFile: reason = "no such file or folder"
        case .fileReadNoPermission, .fileWriteNoPermission: reason = "permission denied"
        case .fileWriteOutOfSpace: reason = "no space left on the device"
        case .fileWriteFileExists: reason = "it exists already"
        case .fileReadCorruptFile: reason = "the file is not in the expected format"
        case .fileReadInapplicableStringEncoding, .fileWriteInapplicableStringEncoding: reason = "the text is not in the expected encoding"
        case .fileReadTooLarge: reason = "the file is too large"
        case .fileWriteVolumeReadOnly: reason = "the volume is read-only"
        default:
            // Cocoa's file-writing codes are 512–1023, the reading ones below.
            reason = (512..<1024).contains(error.code) ? "cannot write it" : "cannot read it"
        }
        return reason
    }

    private static func decodingSentence(_ error: DecodingError, subject: String?) -> String {
        let prefix = subject.map { "'\($0)': " } ?? ""
        func at(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return path.isEmpty ? "" : " at \(path.hasPrefix(".") ? String(path.dropFirst()) : path)"
        }
        switch error {
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return prefix + "not valid JSON" }
            return prefix + "a value is not valid\(at(context)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return prefix + "the field '\(key.stringValue)' is missing\(at(context))"
        case .typeMismatch(let type, let context):
            return prefix + "a value\(at(context)) is not \(kind(of: type))"
        case .valueNotFound(let type, let context):
            return prefix + "\(kind(of: type)) is missing\(at(context))"
        @unknown default:
            return prefix + "cannot decode it"
        }
    }

    /// What JSON value a decoder wanted, in words (`a list`, `a number`), not the Swift type
    /// it names (`Array<Any>`, `Swift.Int`).
    public static func kind(of type: Any.Type) -> String {
        let name = String(describing: type)
        if name.hasPrefix("Array<") || name.hasPrefix("ContiguousArray<") || name.hasPrefix("Set<") { return "a list" }
        if name.hasPrefix("Dictionary<") { return "an object" }
        switch name {
        case "String", "Substring", "Character", "URL": return "a string"
        case "Bool": return "true or false"
        case "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64": return "a whole number"
        case "Double", "Float", "Decimal", "CGFloat": return "a number"
        case "Date": return "a date"
        default: return "an object"
        }
    }
}
