import Testing
import TrawlBatch
import TrawlStore

/// The closing summary reads as what happened: a list that names a URL twice is not a fault.
@Suite("Batch summary text")
struct SummaryTextTests {
    @Test func repeatedLinesAreSaidAsWhatTheyAre() {
        var summary = StoreSummary()
        summary.progress.duplicates = 200
        let text = BatchSummaryText.render(summary, elapsed: nil, finishedThisRun: nil)
        #expect(text.contains("200 lines named a URL listed before (each URL is fetched once)"), "\(text)")
        #expect(!text.contains("coalesced"))
        summary.progress.duplicates = 1
        #expect(BatchSummaryText.render(summary, elapsed: nil, finishedThisRun: nil).contains("1 line named a URL listed before"))
    }
}
