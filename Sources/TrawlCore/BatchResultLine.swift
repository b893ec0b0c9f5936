import Foundation

/// One line of `trawl batch --out`: the answer for one input URL.
///
/// ```json
/// {"attempts":1,"httpStatus":200,"input":"https://giphy.com/gifs/x","media":[…],"status":"done","url":"https://giphy.com/gifs/x"}
/// {"attempts":0,"error":{"code":"invalid-url","message":"'not a url' is not a URL"},"input":"not a url","status":"failed"}
/// ```
public struct BatchResultLine: Codable, Sendable, Hashable {
    /// The line as given.
    public var input: String
    /// The normalised URL; absent for a line that is not one.
    public var url: String?
    /// `done` or `failed`.
    public var status: String
    /// The document's HTTP status, when there was a response.
    public var httpStatus: Int?
    /// The media found, as `trawl resolve --json` prints them; empty for a page without any.
    public var media: [MediaLine]?
    public var error: ErrorInfo?
    public var attempts: Int
    /// Further input lines that named the same URL (coalesced onto this one).
    public var duplicates: Int?
    /// Why rendering the page failed, on a page `--browser auto` tried to render after its
    /// static fetch: the line is then the static result (`done`), not a failure.
    public var renderError: ErrorInfo?

    public struct ErrorInfo: Codable, Sendable, Hashable {
        public var code: String
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    public init(
        input: String, url: String?, status: String, httpStatus: Int? = nil, media: [MediaLine]? = nil,
        error: ErrorInfo? = nil, attempts: Int, duplicates: Int = 0, renderError: ErrorInfo? = nil
    ) {
        self.input = input
        self.url = url
        self.status = status
        self.httpStatus = httpStatus
        self.media = media
        self.error = error
        self.attempts = attempts
        self.duplicates = duplicates > 0 ? duplicates : nil
        self.renderError = renderError
    }
}
