public import Foundation
public import TrawlCore

/// One request and its response in a ``HAR``.
public struct HAREntry: Sendable, Codable, Hashable {
    public var pageref: String?
    /// ISO 8601 with fractional seconds.
    public var startedDateTime: String
    /// Milliseconds from request to the end of the response.
    public var time: Double
    public var request: Request
    public var response: Response
    public var cache: Cache
    public var timings: Timings
    public var serverIPAddress: String?
    public var connection: String?
    public var comment: String?
    /// Trawl's field: how the payload reached the parsers (`document`, a follow-up, …).
    public var origin: PayloadOrigin?
    /// Trawl's field: the URL after redirects, when the loader followed them itself.
    public var finalURL: String?

    public init(
        startedDateTime: String = HAREntry.timestamp(Date()), time: Double = 0, request: Request, response: Response,
        timings: Timings = Timings(), origin: PayloadOrigin? = nil, finalURL: String? = nil
    ) {
        self.startedDateTime = startedDateTime
        self.time = time
        self.request = request
        self.response = response
        self.cache = Cache()
        self.timings = timings
        self.origin = origin
        self.finalURL = finalURL
    }

    enum CodingKeys: String, CodingKey {
        case pageref, startedDateTime, time, request, response, cache, timings, serverIPAddress, connection, comment
        case origin = "_origin"
        case finalURL = "_finalURL"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        pageref = try c.decodeIfPresent(String.self, forKey: .pageref)
        startedDateTime = try c.decodeIfPresent(String.self, forKey: .startedDateTime) ?? ""
        time = try c.decodeIfPresent(Double.self, forKey: .time) ?? 0
        request = try c.decode(Request.self, forKey: .request)
        response = try c.decode(Response.self, forKey: .response)
        cache = try c.decodeIfPresent(Cache.self, forKey: .cache) ?? Cache()
        timings = try c.decodeIfPresent(Timings.self, forKey: .timings) ?? Timings()
        serverIPAddress = try c.decodeIfPresent(String.self, forKey: .serverIPAddress)
        connection = try c.decodeIfPresent(String.self, forKey: .connection)
        comment = try c.decodeIfPresent(String.self, forKey: .comment)
        // Trawl's own fields never make an archive from another tool unreadable.
        origin = try? c.decodeIfPresent(PayloadOrigin.self, forKey: .origin)
        finalURL = try? c.decodeIfPresent(String.self, forKey: .finalURL)
    }

    public static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }

    /// A header or query pair.
    public struct NameValue: Sendable, Codable, Hashable {
        public var name: String
        public var value: String
        public var comment: String?

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }

        private enum CodingKeys: String, CodingKey { case name, value, comment }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            name = try c.decode(String.self, forKey: .name)
            value = try c.decodeIfPresent(String.self, forKey: .value) ?? ""
            comment = try c.decodeIfPresent(String.self, forKey: .comment)
        }
    }

    public struct Cookie: Sendable, Codable, Hashable {
        public var name: String
        public var value: String
        public var path: String?
        public var domain: String?
        public var expires: String?
        public var httpOnly: Bool?
        public var secure: Bool?
        public var comment: String?

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public struct PostData: Sendable, Codable, Hashable {
        public var mimeType: String
        public var text: String?
        public var params: [NameValue]?
        public var comment: String?

        public init(mimeType: String, text: String?) {
            self.mimeType = mimeType
            self.text = text
        }
    }

    public struct Request: Sendable, Codable, Hashable {
        public var method: String
        public var url: String
        public var httpVersion: String
        public var cookies: [Cookie]
        public var headers: [NameValue]
        public var queryString: [NameValue]
        public var postData: PostData?
        public var headersSize: Int
        public var bodySize: Int
        public var comment: String?

        public init(method: String = "GET", url: String, headers: [NameValue] = [], postData: PostData? = nil) {
            self.method = method
            self.url = url
            self.httpVersion = "HTTP/1.1"
            self.cookies = []
            self.headers = headers
            self.queryString = URLComponents(string: url)?.queryItems?.map { NameValue(name: $0.name, value: $0.value ?? "") } ?? []
            self.postData = postData
            self.headersSize = -1
            self.bodySize = postData?.text?.utf8.count ?? 0
        }

        private enum CodingKeys: String, CodingKey {
            case method, url, httpVersion, cookies, headers, queryString, postData, headersSize, bodySize, comment
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            method = try c.decodeIfPresent(String.self, forKey: .method) ?? "GET"
            url = try c.decode(String.self, forKey: .url)
            httpVersion = try c.decodeIfPresent(String.self, forKey: .httpVersion) ?? ""
            cookies = try c.decodeIfPresent([Cookie].self, forKey: .cookies) ?? []
            headers = try c.decodeIfPresent([NameValue].self, forKey: .headers) ?? []
            queryString = try c.decodeIfPresent([NameValue].self, forKey: .queryString) ?? []
            postData = try c.decodeIfPresent(PostData.self, forKey: .postData)
            headersSize = try c.decodeIfPresent(Int.self, forKey: .headersSize) ?? -1
            bodySize = try c.decodeIfPresent(Int.self, forKey: .bodySize) ?? -1
            comment = try c.decodeIfPresent(String.self, forKey: .comment)
        }
    }

    public struct Response: Sendable, Codable, Hashable {
        public var status: Int
        public var statusText: String
        public var httpVersion: String
        public var cookies: [Cookie]
        public var headers: [NameValue]
        public var content: Content
        public var redirectURL: String
        public var headersSize: Int
        public var bodySize: Int
        public var comment: String?

        public init(status: Int, headers: [NameValue] = [], content: Content) {
            self.status = status
            self.statusText = HTTPStatusText.text(for: status)
            self.httpVersion = "HTTP/1.1"
            self.cookies = []
            self.headers = headers
            self.content = content
            self.redirectURL = headers.first { $0.name.lowercased() == "location" }?.value ?? ""
            self.headersSize = -1
            self.bodySize = content.size
        }

        private enum CodingKeys: String, CodingKey {
            case status, statusText, httpVersion, cookies, headers, content, redirectURL, headersSize, bodySize, comment
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            status = try c.decode(Int.self, forKey: .status)
            statusText = try c.decodeIfPresent(String.self, forKey: .statusText) ?? ""
            httpVersion = try c.decodeIfPresent(String.self, forKey: .httpVersion) ?? ""
            cookies = try c.decodeIfPresent([Cookie].self, forKey: .cookies) ?? []
            headers = try c.decodeIfPresent([NameValue].self, forKey: .headers) ?? []
            content = try c.decodeIfPresent(Content.self, forKey: .content) ?? Content(mimeType: "", text: nil)
            redirectURL = try c.decodeIfPresent(String.self, forKey: .redirectURL) ?? ""
            headersSize = try c.decodeIfPresent(Int.self, forKey: .headersSize) ?? -1
            bodySize = try c.decodeIfPresent(Int.self, forKey: .bodySize) ?? -1
            comment = try c.decodeIfPresent(String.self, forKey: .comment)
        }
    }

    /// A response body: text, or base64 when the bytes are not UTF-8.
    public struct Content: Sendable, Codable, Hashable {
        public var size: Int
        public var compression: Int?
        public var mimeType: String
        public var text: String?
        /// `base64` when ``text`` holds base64 of the bytes.
        public var encoding: String?
        public var comment: String?

        public init(mimeType: String, text: String?, encoding: String? = nil, size: Int? = nil) {
            self.mimeType = mimeType
            self.text = text
            self.encoding = encoding
            self.size = size ?? text?.utf8.count ?? 0
        }

        /// Content holding `body` exactly: as text when it is valid UTF-8, else base64.
        public init(body: Data, mimeType: String) {
            if let text = String(validating: body, as: UTF8.self) {
                self.init(mimeType: mimeType, text: text, size: body.count)
            } else {
                self.init(mimeType: mimeType, text: body.base64EncodedString(), encoding: "base64", size: body.count)
            }
        }

        /// The bytes the content stands for.
        public var body: Data? {
            guard let text else { return Data() }
            if encoding?.lowercased() == "base64" { return Data(base64Encoded: text, options: .ignoreUnknownCharacters) }
            return Data(text.utf8)
        }

        private enum CodingKeys: String, CodingKey { case size, compression, mimeType, text, encoding, comment }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            text = try c.decodeIfPresent(String.self, forKey: .text)
            size = (try? c.decodeIfPresent(Int.self, forKey: .size)) ?? text?.utf8.count ?? 0
            compression = try? c.decodeIfPresent(Int.self, forKey: .compression)
            mimeType = try c.decodeIfPresent(String.self, forKey: .mimeType) ?? ""
            encoding = try c.decodeIfPresent(String.self, forKey: .encoding)
            comment = try c.decodeIfPresent(String.self, forKey: .comment)
        }
    }

    public struct Cache: Sendable, Codable, Hashable {
        public var comment: String?
        public init() {}
    }

    /// Milliseconds per phase; -1 where not known. `send`, `wait` and `receive` are required.
    public struct Timings: Sendable, Codable, Hashable {
        public var blocked: Double?
        public var dns: Double?
        public var connect: Double?
        public var send: Double
        public var wait: Double
        public var receive: Double
        public var ssl: Double?

        public init(send: Double = 0, wait: Double = 0, receive: Double = 0) {
            self.blocked = -1
            self.dns = -1
            self.connect = -1
            self.send = send
            self.wait = wait
            self.receive = receive
            self.ssl = -1
        }

        private enum CodingKeys: String, CodingKey { case blocked, dns, connect, send, wait, receive, ssl }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            blocked = try? c.decodeIfPresent(Double.self, forKey: .blocked)
            dns = try? c.decodeIfPresent(Double.self, forKey: .dns)
            connect = try? c.decodeIfPresent(Double.self, forKey: .connect)
            send = (try? c.decodeIfPresent(Double.self, forKey: .send)) ?? 0
            wait = (try? c.decodeIfPresent(Double.self, forKey: .wait)) ?? 0
            receive = (try? c.decodeIfPresent(Double.self, forKey: .receive)) ?? 0
            ssl = try? c.decodeIfPresent(Double.self, forKey: .ssl)
        }
    }
}

/// Reason phrases for the statuses recordings hold.
enum HTTPStatusText {
    static func text(for status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 410: "Gone"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: ""
        }
    }
}
