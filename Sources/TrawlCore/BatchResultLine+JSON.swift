extension BatchResultLine {
    /// The line as written: sorted keys, no newline. The same text as `TrawlJSON.line(self)`,
    /// written directly (see `JSONLineWriter`): every job of a batch or a queue writes one.
    public func encoded() -> String {
        var writer = JSONLineWriter()
        write(to: &writer)
        return writer.string
    }

    func write(to writer: inout JSONLineWriter) {
        writer.beginObject()
        writer.member("attempts", attempts)
        writer.member("duplicates", duplicates)
        if let error {
            writer.key("error")
            error.write(to: &writer)
        }
        writer.member("httpStatus", httpStatus)
        writer.member("input", input)
        if let media {
            writer.beginArray("media")
            for line in media {
                writer.element()
                line.write(to: &writer)
            }
            writer.endArray()
        }
        if let renderError {
            writer.key("renderError")
            renderError.write(to: &writer)
        }
        writer.member("status", status)
        writer.member("url", url)
        writer.endObject()
    }
}

extension BatchResultLine.ErrorInfo {
    func write(to writer: inout JSONLineWriter) {
        writer.beginObject()
        writer.member("code", code)
        writer.member("message", message)
        writer.endObject()
    }
}

extension MediaLine {
    func write(to writer: inout JSONLineWriter) {
        writer.beginObject()
        writer.member("byteSize", byteSize)
        writer.member("caption", caption)
        writer.member("degraded", degraded)
        writer.member("degradedReason", degradedReason)
        writer.member("durationSeconds", durationSeconds)
        writer.member("evidence", evidence)
        if let explanation {
            writer.key("explanation")
            writer.beginObject()
            writer.member("rule", explanation.rule)
            writer.member("verdict", explanation.verdict.rawValue)
            writer.endObject()
        }
        writer.member("height", height)
        writer.member("highlight", highlight)
        writer.member("input", input)
        writer.member("kind", kind)
        writer.member("loader", loader)
        writer.member("next", next)
        writer.member("origin", origin)
        writer.member("page", page)
        writer.member("parser", parser)
        if let probe {
            writer.key("probe")
            probe.write(to: &writer)
        }
        writer.beginArray("renditions")
        for rendition in renditions {
            writer.element()
            rendition.write(to: &writer)
        }
        writer.endArray()
        writer.member("still", still)
        writer.member("tags", tags)
        writer.member("title", title)
        writer.member("url", url)
        writer.member("width", width)
        writer.endObject()
    }
}

extension Rendition {
    func write(to writer: inout JSONLineWriter) {
        writer.beginObject()
        writer.member("byteSize", byteSize)
        writer.member("height", height)
        writer.member("kind", kind.rawValue)
        writer.member("name", name)
        if let probe {
            writer.key("probe")
            probe.write(to: &writer)
        }
        writer.member("url", url)
        writer.member("width", width)
        writer.endObject()
    }
}

extension MediaProbe {
    func write(to writer: inout JSONLineWriter) {
        writer.beginObject()
        writer.member("animated", animated)
        writer.member("bytes", bytes)
        writer.member("checkedAt", checkedAt)
        writer.member("contentType", contentType)
        writer.member("dead", dead)
        writer.member("durationSeconds", durationSeconds)
        writer.member("error", error)
        writer.member("format", format)
        writer.member("frames", frames)
        writer.member("height", height)
        writer.member("status", status)
        writer.member("width", width)
        writer.endObject()
    }
}
