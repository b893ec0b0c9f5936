import Hummingbird

/// How `GET /v1/resolve` answers, chosen by the `Accept` header: one JSON object when all
/// is done (the default), or each result set as it arrives, as JSON lines or server-sent events.
enum StreamFormat: String, Sendable {
    case json = "application/json"
    case ndjson = "application/x-ndjson"
    case eventStream = "text/event-stream"

    /// The first streaming type the header names; JSON otherwise (also for `*/*`).
    init(accept: String?) {
        let types = (accept ?? "").split(separator: ",").map {
            $0.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        }
        self =
            types.lazy.compactMap { type -> StreamFormat? in
                switch type {
                case "application/x-ndjson", "application/jsonl", "application/jsonlines": .ndjson
                case "text/event-stream": .eventStream
                case "application/json": .json
                default: nil
                }
            }.first ?? .json
    }

    var contentType: String {
        switch self {
        case .json: "application/json; charset=utf-8"
        case .ndjson: "application/x-ndjson; charset=utf-8"
        case .eventStream: "text/event-stream; charset=utf-8"
        }
    }
}
