// trawl-test-process: processes the kill -9 tests start and kill, built beside the tests.
//
//   trawl-test-process hold-browser       starts a browser, prints `browser PID`, waits to be killed
//   trawl-test-process write-index PATH   records pages into the local index at PATH through an
//                                          IndexWriter (four media each), until killed; prints
//                                          `written` once the file and its WAL pass 4 MB
import Foundation
import TrawlBrowser
import TrawlCore
import TrawlIndex
import TrawlTesting

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "hold-browser":
    let pool = BrowserPool()
    let server = try LoopbackServer { _ in .html("<p>held</p>") }
    _ = try await pool.render(FetchRequest(url: server.url("/")))
    FileHandle.standardOutput.write(Data("browser \(await pool.browserProcessID ?? 0)\n".utf8))
    while true { try await Task.sleep(for: .seconds(3600)) }  // held until killed, not a wait
case "write-index" where arguments.count == 2:
    let writer = IndexWriter(index: try MediaIndex(path: arguments[1]))
    let sites = ["giphy", "tenor", "imgur", "reddit"]
    let path = arguments[1]
    func written() -> Int {
        ["", "-wal"].reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: path + $1)[.size] as? NSNumber)?.intValue ?? 0) }
    }
    var announced = false
    for page in 0... {
        let site = sites[page % sites.count]
        let url = "https://\(site).com/post/\(page)"
        let media = (0..<4).map { n in
            Media(
                url: "https://media.\(site).com/\(page)/\(n).gif", kind: .gif, width: 480, height: 270,
                title: "page \(page) media \(n)", page: url, provenance: Provenance(parser: "test", origin: .document))
        }
        writer.record(Extraction(request: Request(url), engine: "web", media: media, isComplete: true))
        if page % 500 == 499 {
            // The test kills this process once it has written a good part.
            if !announced, written() >= 4 << 20 {
                FileHandle.standardOutput.write(Data("written\n".utf8))
                announced = true
            }
            // Pacing, not a wait: the writer's flushes keep up rather than buffer without bound.
            try await Task.sleep(for: .milliseconds(1))
        }
    }
default:
    FileHandle.standardError.write(Data("usage: trawl-test-process hold-browser | write-index PATH\n".utf8))
    exit(2)
}
