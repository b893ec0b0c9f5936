import Foundation
import Testing

@testable import TrawlCore

/// Inputs fuzz-query found: a term with blanks (from quotes) around a URL-looking word was taken
/// as a URL after trimming, breaking the promise that a URL term has no blank.
@Suite("Query fuzz regressions")
struct QueryFuzzRegressionTests {
    @Test(arguments: [
        "\"\u{0B}\u{0B} //tps", "//ai\n\n\" ", "https://nlp               \"      ", "\"\r\nhttps://-g999999999999\"9o996m/bouet\n\"",
        "//lh \"   ", "\"\u{0C}\"\u{0B}\t\u{0C}//Re\t\t\u{0C}\t", "//lh \"    \r\r\r\r\r\r\r\r", "https://nl/exaP\u{DF}\u{DF} \" ", "//u\"             ",
        "  \" \"\"\"//@\"\"\"\"\"\"\"\"\"A\"\"\"\"4\"\"\"\"\"",
    ])
    func aURLTermNeverHoldsABlank(text: String) {
        let query = Query(parsing: text)
        if query.url != nil {
            let blank = query.term.contains { $0.isWhitespace }
            #expect(!blank, "\(query.term.debugDescription)")
        }
        #expect(Query(parsing: text) == query)
    }
}
