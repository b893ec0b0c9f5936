public import Foundation

/// Checks an archive against the HAR 1.2 structure as written — the fields the specification
/// requires and their JSON types — without the leniency ``HAR`` reads with. What Trawl writes
/// must pass; what other tools write need not.
public enum HARValidator {
    /// The problems found, each a path and what is wrong; empty for a valid archive.
    public static func problems(in data: Data) -> [String] {
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return ["not a JSON object"] }
        var problems: [String] = []
        func require(_ object: [String: Any], _ path: String, _ fields: [(String, Kind)]) {
            for (name, kind) in fields {
                guard let value = object[name] else { problems.append("\(path).\(name): missing"); continue }
                if !kind.matches(value) { problems.append("\(path).\(name): not \(kind)") }
            }
        }
        guard let log = root["log"] as? [String: Any] else { return ["log: missing"] }
        require(log, "log", [("version", .string), ("creator", .object), ("entries", .array)])
        if let creator = log["creator"] as? [String: Any] { require(creator, "log.creator", [("name", .string), ("version", .string)]) }
        for (index, item) in ((log["entries"] as? [Any]) ?? []).enumerated() {
            let path = "log.entries[\(index)]"
            guard let entry = item as? [String: Any] else { problems.append("\(path): not an object"); continue }
            require(
                entry, path,
                [("startedDateTime", .string), ("time", .number), ("request", .object), ("response", .object), ("cache", .object), ("timings", .object)])
            if let request = entry["request"] as? [String: Any] {
                require(
                    request, path + ".request",
                    [
                        ("method", .string), ("url", .string), ("httpVersion", .string), ("cookies", .array), ("headers", .array),
                        ("queryString", .array), ("headersSize", .number), ("bodySize", .number),
                    ])
                for (k, header) in ((request["headers"] as? [Any]) ?? []).enumerated() {
                    require((header as? [String: Any]) ?? [:], path + ".request.headers[\(k)]", [("name", .string), ("value", .string)])
                }
            }
            if let response = entry["response"] as? [String: Any] {
                require(
                    response, path + ".response",
                    [
                        ("status", .number), ("statusText", .string), ("httpVersion", .string), ("cookies", .array), ("headers", .array),
                        ("content", .object), ("redirectURL", .string), ("headersSize", .number), ("bodySize", .number),
                    ])
                if let content = response["content"] as? [String: Any] {
                    require(content, path + ".response.content", [("size", .number), ("mimeType", .string)])
                    if let encoding = content["encoding"] as? String, encoding == "base64", let text = content["text"] as? String,
                        Data(base64Encoded: text, options: .ignoreUnknownCharacters) == nil
                    {
                        problems.append(path + ".response.content.text: not valid base64")
                    }
                }
            }
            if let timings = entry["timings"] as? [String: Any] {
                require(timings, path + ".timings", [("send", .number), ("wait", .number), ("receive", .number)])
            }
            if let started = entry["startedDateTime"] as? String, (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(started)) == nil,
                (try? Date.ISO8601FormatStyle().parse(started)) == nil
            {
                problems.append(path + ".startedDateTime: not ISO 8601")
            }
        }
        return problems
    }

    enum Kind: CustomStringConvertible {
        case string, number, object, array

        func matches(_ value: Any) -> Bool {
            switch self {
            case .string: value is String
            case .number: value is NSNumber
            case .object: value is [String: Any]
            case .array: value is [Any]
            }
        }

        var description: String {
            switch self {
            case .string: "a string"
            case .number: "a number"
            case .object: "an object"
            case .array: "an array"
            }
        }
    }
}
