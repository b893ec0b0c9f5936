import ArgumentParser
import Foundation
import Trawl
import TrawlCore
import TrawlFetch
import TrawlRecordings

/// `trawl resolve URL-OR-QUERY…`
struct ResolveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Resolve pasted URLs (or !engine queries) into the GIFs they carry.",
        discussion: """
            A table on a terminal; --json prints one JSON object per media, --stream one per
            result set as it arrives. Exit codes: 0 media found for every input, 1 some input
            had no media, 2 usage error, 3 a fetch or parse failed.
            """)

    @Argument(help: "Page URLs, or queries like '!giphy cats'.")
    var inputs: [String]

    @Flag(help: "One JSON object per media.")
    var json = false

    @Flag(help: "One JSON object per result set, as each arrives.")
    var stream = false

    @Option(help: "Stop after this many media per input.")
    var limit: Int?

    @Option(help: "Seconds allowed for each request.")
    var timeout: Double = 30

    @Option(help: "The User-Agent header to send.")
    var userAgent: String = LoaderConfiguration.defaultUserAgent

    @Option(help: "Where the next page starts (a token printed as 'next').")
    var page: String?

    @Option(help: "Serve requests from this HAR file, or every HAR under this folder, instead of the network.")
    var replay: String?

    @Option(help: "With --replay, what a request with no recording does: none (an error naming it) or network.")
    var fallback: Trawl.Replay.Fallback = .none

    @Option(help: "Write every payload of the run, secrets scrubbed, to this HAR file.")
    var record: String?

    @OptionGroup(title: "Fetch policy")
    var fetch: FetchOptions

    func validate() throws {
        if json && stream { throw ValidationError("--json and --stream are exclusive") }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        if !(timeout > 0) { throw ValidationError("--timeout must be a positive number of seconds") }
        if let page, Pagination(token: page) == nil { throw ValidationError("--page '\(page)' is not an offset or cursor token") }
        if fallback == .network && replay == nil { throw ValidationError("--fallback needs --replay") }
    }

    func run() async throws {
        let loader = LoaderConfiguration(userAgent: userAgent, timeout: .milliseconds(Int(timeout * 1000)))
        var configuration = Trawl.Configuration(loader: loader)
        do {
            configuration.fetch = try fetch.policy()
        } catch {
            throw ValidationError("--cache: \(error)")
        }
        if let replay {
            do {
                configuration.replay = try Trawl.Replay(path: URL(fileURLWithPath: replay), fallback: fallback)
            } catch {
                throw ValidationError("--replay: \(error)")
            }
        }
        let recorder = record.map { _ in HARRecorder() }
        configuration.recorder = recorder
        let provider = Trawl.makeProvider(configuration)
        let output = OutputWriter(mode: json ? .jsonLines : stream ? .stream : .table)
        var status = ExitStatus.found
        for input in inputs {
            let outcome = await resolve(input, provider: provider, output: output)
            switch outcome {
            case .failure: status = .failure
            case .nothing where status == .found: status = .nothingFound
            default: break
            }
        }
        if let recorder, let record {
            let file = URL(fileURLWithPath: record)
            try await recorder.write(to: file, comment: "trawl resolve " + inputs.joined(separator: " "))
            FileHandle.standardError.write(Data("trawl: recorded \(await recorder.recorded.count) payloads to \(file.path)\n".utf8))
        }
        throw ExitCode(status.rawValue)
    }

    enum Outcome { case found, nothing, failure }

    func resolve(_ input: String, provider: SearchProvider, output: OutputWriter) async -> Outcome {
        let request = Request(input, pagination: page.flatMap(Pagination.init(token:)) ?? .start, limit: limit)
        var count = 0
        var degraded = false
        var next: Pagination?
        do {
            for try await set in await provider.results(for: request) {
                var set = set
                if let limit { set.media = Array(set.media.prefix(limit - count)) }
                count += set.media.count
                degraded = degraded || set.isDegraded
                next = set.next ?? next
                output.write(set, input: input)
                if let limit, count >= limit { break }
            }
        } catch {
            output.flush(input: input, next: next)
            FileHandle.standardError.write(Data("trawl: \(input): \(error)\n".utf8))
            return .failure
        }
        output.flush(input: input, next: next)
        if count == 0 {
            FileHandle.standardError.write(Data("trawl: \(input): no media found\n".utf8))
            return .nothing
        }
        return .found
    }
}

extension Trawl.Replay.Fallback: ExpressibleByArgument {}
