import Foundation
import Testing
import TrawlCore

/// `BatchResultLine.encoded()` writes its JSON directly: the text must be `JSONEncoder`'s for the
/// same value (sorted keys, slashes as they are), byte for byte, and read back as the same value.
@Suite("Result line encoding")
struct ResultLineEncodingTests {
    /// Strings JSON must escape or pass through untouched.
    static let awkward = [
        "", "plain", "quote \" and backslash \\ and slash /", "tab\tnewline\nreturn\rbackspace\u{8}form feed\u{C}",
        "controls \u{0}\u{1}\u{1F} and delete \u{7F}", "é日本語 😀 \u{2028}\u{2029} \u{FEFF}", "<mark>a</mark> & 'b'", "\\u0041 stays text",
        "https://x.example/a?b=1&c=%20#frag",
    ]

    static func media(_ text: String, full: Bool) -> MediaLine {
        var media = Media(
            url: "https://media.example/\(text).gif", kind: .gif, width: full ? 480 : nil, height: full ? -1 : nil, byteSize: full ? Int.max : nil,
            title: full ? text : nil, still: full ? text : nil,
            renditions: full
                ? [Rendition(url: text, kind: .mp4, width: 0, height: 2, byteSize: 3, name: text), Rendition(url: "u", kind: .unknown)] : [],
            page: full ? "https://page.example/\(text)" : nil, provenance: Provenance(parser: text, origin: .followUp(reason: text)),
            caption: full ? text : nil, tags: full ? [text, "", "b"] : nil)
        if full {
            media.durationSeconds = 2.5
            media.highlight = text
            media.evidence = [text]
            media.explanation = Explanation(.dropped, rule: text)
            media.probe = MediaProbe(
                status: 200, contentType: text, bytes: 0, format: "gif", animated: true, frames: 12, durationSeconds: 3, width: 1, height: 1,
                dead: false, error: text, checkedAt: Date(timeIntervalSince1970: 0))
            media.renditions[0].probe = MediaProbe(status: 404, dead: true, checkedAt: Date(timeIntervalSince1970: 1))
        }
        return MediaLine(media, input: text, degraded: full ? text : nil, next: full ? .cursor(text) : nil)
    }

    static func lines(_ text: String) -> [BatchResultLine] {
        [
            BatchResultLine(input: text, url: nil, status: "failed", error: .init(code: text, message: text), attempts: 0),
            BatchResultLine(input: text, url: text, status: "done", httpStatus: 200, media: [], attempts: 1),
            BatchResultLine(
                input: text, url: text, status: "done", httpStatus: 203, media: [media(text, full: false), media(text, full: true)], attempts: 3,
                duplicates: 2, renderError: .init(code: "", message: text)),
        ]
    }

    @Test(arguments: awkward)
    func writesWhatJSONEncoderWrites(_ text: String) throws {
        for line in Self.lines(text) {
            let direct = line.encoded()
            #expect(direct == TrawlJSON.line(line))
            #expect(try JSONDecoder().decode(BatchResultLine.self, from: Data(direct.utf8)) == line)
        }
    }

    @Test(arguments: [0.1, 1e-7, 123456789.125, 1e21, -0.0, 5, Double.greatestFiniteMagnitude, Double.leastNonzeroMagnitude])
    func writesNumbersAsJSONEncoderDoes(_ seconds: Double) throws {
        var line = Self.lines("x")[2]
        line.media?[1].durationSeconds = seconds
        #expect(line.encoded() == TrawlJSON.line(line))
        #expect(try JSONDecoder().decode(BatchResultLine.self, from: Data(line.encoded().utf8)) == line)
    }

    /// JSON has no NaN: the duration is left out, where `JSONEncoder` failed the whole line.
    @Test func leavesOutNonFiniteNumbers() throws {
        for seconds in [Double.nan, .infinity, -.infinity] {
            var line = Self.lines("x")[2]
            line.media?[1].durationSeconds = seconds
            let read = try JSONDecoder().decode(BatchResultLine.self, from: Data(line.encoded().utf8))
            line.media?[1].durationSeconds = nil
            #expect(read == line)
        }
    }
}
