import Foundation
import TrawlCore

/// The page's side of ``RequestInterceptor``: each paused request is put to the interceptors in
/// the background (the page's loop keeps handling events meanwhile) and settled by their answer;
/// each paused response is read and shown to them before the page gets it.
extension PageLoad {
    /// Asks the interceptors about a paused request and carries out their decision.
    mutating func intercept(_ id: String, _ params: JSONValue, session: String?) {
        guard let request = Self.interceptedRequest(params, started: Date()) else {
            post("Fetch.continueRequest", ["requestId": .string(id)], session: session)
            return
        }
        if interceptors.observesResponses { pausedAt[id] = request.started }
        let connection = connection
        let interceptors = interceptors
        let sessionId = session ?? self.sessionId
        let timeout = min(configuration.commandTimeout, remaining())
        let signals = signals
        // The page's own document (not an iframe's, not one in another frame's session).
        let loadsPage = session == nil && request.isDocument && params["frameId"]?.string == mainFrameId
        interceptions.add(
            Task {
                let decision = await interceptors.decide(request)
                // Reported before the request fails, so the refusal is what the page ends with rather
                // than the navigation error that follows it.
                if loadsPage, case .refuse(_, let error) = decision { signals.yield(.refused(error)) }
                let (method, params) = Self.command(for: decision, requestId: id)
                _ = try? await connection.send(method, params, sessionId: sessionId, timeout: timeout)
            })
    }

    /// Reads a paused response (its body up to the size cap), shows it to the observing
    /// interceptors, then lets the page have it. A recording is therefore complete for every
    /// response the page has seen.
    mutating func observeResponse(_ id: String, _ params: JSONValue, session: String?) {
        let started = pausedAt.removeValue(forKey: id) ?? Date()
        let sessionId = session ?? self.sessionId
        guard params["responseErrorReason"] == nil, let status = params["responseStatusCode"]?.int,
            let request = Self.interceptedRequest(params, started: started)
        else {
            post("Fetch.continueRequest", ["requestId": .string(id)], session: session)
            return
        }
        let headers = Self.headerList(params["responseHeaders"])
        let connection = connection
        let observers = interceptors.compactMap(\.observe)
        let maxBody = configuration.maxBodyBytes
        let timeout = min(configuration.commandTimeout, remaining())
        Task {
            var body = Data()
            var omitted = false
            // A redirect, a 204 or a 304 has no body to read (the browser follows a redirect once
            // it is continued).
            if !(300..<400).contains(status), status != 204 {
                if let length = headers["Content-Length"].flatMap({ Int($0) }), length > maxBody {
                    omitted = true
                } else if let reply = try? await connection.send(
                    "Fetch.getResponseBody", ["requestId": .string(id)], sessionId: sessionId, timeout: timeout),
                    let text = reply["body"]?.string
                {
                    body = reply["base64Encoded"]?.bool == true ? (Data(base64Encoded: text) ?? Data()) : Data(text.utf8)
                    if body.count > maxBody {
                        body = Data()
                        omitted = true
                    }
                } else {
                    omitted = true
                }
            }
            let elapsed = Date().timeIntervalSince(started)
            let response = InterceptedResponse(
                status: status, headers: headers, body: body, bodyOmitted: omitted, duration: .milliseconds(Int(max(0, elapsed) * 1000)))
            for observe in observers { await observe(request, response) }
            _ = try? await connection.send("Fetch.continueRequest", ["requestId": .string(id)], sessionId: sessionId, timeout: timeout)
        }
    }

    /// The request in a `Fetch.requestPaused` event.
    static func interceptedRequest(_ params: JSONValue, started: Date) -> InterceptedRequest? {
        guard let request = params["request"], let url = request["url"]?.string.flatMap(URL.init(string:)) else { return nil }
        var body: Data?
        if let entries = request["postDataEntries"]?.array {
            body = entries.reduce(into: Data()) { data, entry in
                if let bytes = entry["bytes"]?.string, let decoded = Data(base64Encoded: bytes) { data.append(decoded) }
            }
        } else if let text = request["postData"]?.string {
            body = Data(text.utf8)
        }
        return InterceptedRequest(
            url: url, method: request["method"]?.string ?? "GET", headers: headers(request["headers"]), body: body,
            resourceType: params["resourceType"]?.string ?? "Other", started: started)
    }

    /// `[{name, value}]`, as `Fetch` gives response headers.
    static func headerList(_ value: JSONValue?) -> HTTPHeaders {
        HTTPHeaders(
            (value?.array ?? []).compactMap { item in
                guard let name = item["name"]?.string else { return nil }
                return HTTPHeaders.Field(name: name, value: item["value"]?.string ?? "")
            })
    }

    /// The `Fetch` command that carries out `decision`.
    static func command(for decision: InterceptionDecision, requestId: String) -> (String, [String: JSONValue]) {
        switch decision {
        case .next, .proceed:
            return ("Fetch.continueRequest", ["requestId": .string(requestId)])
        case .fail(let reason), .refuse(let reason, _):
            return ("Fetch.failRequest", ["requestId": .string(requestId), "errorReason": .string(reason.rawValue)])
        case .fulfill(let response):
            let headers: [JSONValue] = response.headers.map { .object(["name": .string($0.name), "value": .string($0.value)]) }
            return (
                "Fetch.fulfillRequest",
                [
                    "requestId": .string(requestId), "responseCode": .number(Double(response.status)),
                    "responseHeaders": .array(headers), "body": .string(response.body.base64EncodedString()),
                ]
            )
        }
    }
}
