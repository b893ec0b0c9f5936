public import ArgumentParser
import Foundation
import Trawl
import TrawlCore
import TrawlFetch
import TrawlIndex
import TrawlRecordings

/// `trawl resolve URL-OR-QUERY…`
struct ResolveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Resolve pasted URLs (or !engine queries) into the GIFs they carry.",
        discussion: """
            A table on a terminal, JSON Lines (one object per media) when the output is a pipe or a file; --stream prints one object per result set as it arrives, and a line for every input, also one that found nothing. Several inputs are resolved at once and printed in the order given. A local file path is read as a file: URL; something that looks like a URL but is not one is a usage error, never a search.

            Exit codes: 0 media found for every input, 1 some input had no media, 2 usage error (also a query the local index cannot read), 3 a fetch or parse failed (the message names the input).
            """)

    @Argument(help: "Page URLs, local files, or queries like '!giphy cats'.")
    var inputs: [String]

    @Flag(help: "One JSON object per media (the default when the output is not a terminal).")
    var json = false

    @Flag(help: "One JSON object per result set, as each arrives.")
    var stream = false

    @Flag(help: "A table even when the output is not a terminal.")
    var table = false

    @Flag(help: "Say why: each media's evidence and the rule that kept it, and the candidates the page offered that a rule dropped.")
    var explain = false

    @Option(help: "Stop after this many media per input.")
    var limit: Int?

    @Option(help: "Inputs resolved at once.")
    var parallel: Int = 8

    @OptionGroup
    var connection: ConnectionOptions

    @OptionGroup(title: "Probe")
    var probe: ProbeOptions

    @Option(help: "Where the next page starts (a token printed as 'next').")
    var page: String?

    @Option(help: "Serve requests from this HAR file, or every HAR under this folder, instead of the network.")
    var replay: String?

    @Option(help: "With --replay, what a request with no recording does: none (an error naming it) or network.")
    var fallback: TrawlConfiguration.Replay.Fallback = .none

    @Option(help: "Write every payload of the run, secrets scrubbed, to this HAR file.")
    var record: String?

    @OptionGroup(title: "Fetch policy")
    var fetch: FetchOptions

    @OptionGroup(title: "Browser")
    var browser: BrowserOptions

    @OptionGroup(title: "Local index")
    var index: IndexOptions

    func validate() throws {
        if [json, stream, table].filter({ $0 }).count > 1 { throw ValidationError("--json, --stream and --table are exclusive") }
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        if parallel < 1 { throw ValidationError("--parallel must be at least 1") }
        if let page, Pagination(token: page) == nil { throw ValidationError("--page '\(page)' is not an offset or cursor token") }
        if fallback == .network && replay == nil { throw ValidationError("--fallback needs --replay") }
        try fetch.address.validateOptIn()
        for input in inputs {
            let text = try InputText.query(for: input)
            // A `!local` query that cannot be read is a usage error naming it, before any work.
            if let command = Query(parsing: text).command, command == LocalEngine.engineName || command == "index" {
                do {
                    _ = try LocalQuery(parsing: text)
                } catch let error as IndexError {
                    throw ValidationError(error.message)
                }
            }
        }
    }

    func run() async throws {
        var configuration = TrawlConfiguration(loader: connection.loader(addressPolicy: try fetch.address.policy()))
        configuration.plainHTTP = connection.plainHTTP
        configuration.search = SearchKeys.fromEnvironment()
        configuration.browser = browser.browser
        configuration.browserConfiguration = browser.configuration
        do {
            configuration.fetch = try fetch.policy()
        } catch {
            throw ValidationError("--cache: \(error)")
        }
        if let replay {
            configuration.replay = try TrawlConfiguration.Replay(path: URL(fileURLWithPath: replay), fallback: fallback)
        }
        let recorder = record.map { _ in HARRecorder() }
        configuration.recorder = recorder
        let texts = try inputs.map(InputText.query(for:))
        // Replays leave no trace in the user's index (they are tests and demos); they may search
        // it. A replay of URLs alone never reads it, so it opens no database (the command starts
        // faster); any `!engine` or plain-text input opens it, so `!local` and the engine list an
        // unknown `!name` prints stay the same.
        let searches = texts.contains { text in
            let query = Query(parsing: text)
            return query.command != nil || query.url == nil
        }
        let opened = replay == nil || searches ? index.open(recording: replay == nil, command: "resolve") : nil
        configuration.localIndex = opened?.index
        configuration.sink = opened?.writer
        configuration.probe = probe.options
        configuration.bytesEvidence = probe.bytesEvidenceLimits(onByDefault: true)
        let provider = SearchProvider(configuration)
        let format = OutputFormat.choose(json: json, stream: stream, table: table)
        let output = OrderedOutput()
        let pagination = page.flatMap(Pagination.init(token:)) ?? .start

        let outcomes = await withTaskGroup(of: (Int, Outcome).self) { group in
            var outcomes = [Outcome](repeating: .found, count: inputs.count)
            var next = 0
            func start() {
                guard next < inputs.count else { return }
                let index = next
                next += 1
                let input = inputs[index]
                var request = Request(texts[index], pagination: pagination, limit: limit)
                if explain { request.explain = true }
                group.addTask { [limit] in
                    let outcome = await Self.resolve(
                        request, input: input, limit: limit, provider: provider, format: format,
                        print: { await output.write($0, for: index) })
                    await output.finish(index)
                    return (index, outcome)
                }
            }
            for _ in 0..<min(parallel, inputs.count) { start() }
            for await (index, outcome) in group {
                outcomes[index] = outcome
                start()
            }
            return outcomes
        }
        await opened?.close()
        if let recorder, let record {
            let file = URL(fileURLWithPath: record)
            try await recorder.write(to: file, comment: "trawl resolve " + inputs.joined(separator: " "))
            Diagnostics.write("trawl: recorded \(Counted(await recorder.recorded.count, "payload")) to \(file.path)")
        }
        let status: ExitStatus =
            outcomes.contains(.usage)
            ? .usage
            : outcomes.contains(.failure) ? .failure : outcomes.contains(.nothing) ? .nothingFound : .found
        throw ExitCode(status.rawValue)
    }

    /// `usage`: the input itself could not be read (a `!local` query the index refuses).
    enum Outcome: Sendable { case found, nothing, failure, usage }

    /// Resolves one input, handing each batch of printed lines to `print` as it is ready.
    static func resolve(
        _ request: Request, input: String, limit: Int?, provider: SearchProvider, format: OutputFormat,
        print: @Sendable ([OutputLine]) async -> Void
    ) async -> Outcome {
        var renderer = ResultRenderer(format: format, input: input)
        var count = 0
        var next: Pagination?
        var failure: (any Error)?
        do {
            for try await set in provider.results(for: request) {
                var set = set
                if let limit { set.media = Array(set.media.prefix(limit - count)) }
                count += set.media.count
                next = set.next ?? next
                await print(renderer.lines(for: set).map(OutputLine.out))
                if let limit, count >= limit { break }
            }
        } catch {
            failure = error
        }
        var lines = renderer.finish(next: next, error: failure).map(OutputLine.out)
        // The input as printed: secrets redacted (``Diagnostics`` redacts every line as well).
        // A blank input names nothing: the error says what it was.
        let named = input.allSatisfy(\.isWhitespace) ? "trawl: " : "trawl: \(Self.shortened(Redaction.text(input))): "
        if let failure {
            // The error names the input again: shortened there too.
            var sentence = ErrorSentence.describe(failure)
            for spelling in Set([input, Redaction.text(input), Redaction.url(input)]) where spelling.count > 200 {
                sentence = sentence.replacingOccurrences(of: spelling, with: Self.shortened(spelling))
            }
            lines.append(.err(named + sentence))
        } else if count == 0 {
            lines.append(.err(named + "no media found"))
        }
        await print(lines)
        if let failure { return ErrorSummary(failure).isUsageError ? .usage : .failure }
        return count == 0 ? .nothing : .found
    }
}

extension TrawlConfiguration.Replay.Fallback: ExpressibleByArgument {}

extension ResolveCommand {
    /// An input as a message names it: whole up to 200 characters, else its start and end
    /// around an ellipsis (a 100 KB URL would otherwise fill the terminal).
    static func shortened(_ input: String) -> String {
        guard input.count > 200 else { return input }
        return "\(input.prefix(150))…\(input.suffix(40))"
    }
}
