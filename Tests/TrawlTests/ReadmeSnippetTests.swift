import Foundation
import Testing
import Trawl

// This file imports only `Trawl` (and the test frameworks): the README's promise that
// `import Trawl` is enough is checked by compiling the snippets here.

/// The Swift snippets of the README and of `docs/`, verbatim between the `snippet` markers:
/// ``readmeSnippetsAreHere`` fails when a page changes and this file does not, so the
/// documentation never shows code that does not compile.
enum ReadmeSnippets {
    /// The first snippet goes to the network: it is compiled, not run.
    static func library() async throws {
        // snippet begin
        let provider = SearchProvider()
        for try await set in provider.results(for: Request("https://imgur.com/gallery/Sdc0Klc")) {
            for media in set.media { print(media.kind, media.url) }
        }
        // snippet end
    }

    /// The second snippet reads recordings: it runs.
    static func configured() async throws -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet begin
        var configuration = TrawlConfiguration(loader: LoaderConfiguration(userAgent: "MyApp/1.0 (me@example.com)"))
        configuration.replay = try TrawlConfiguration.Replay(path: URL(fileURLWithPath: "Recordings/giphy"))
        let offline = SearchProvider(configuration)
        for try await set in offline.results(for: Request("https://giphy.com/gifs/dancing-cat-Trawl0Cat1Demo")) {
            print(set.media.first?.url ?? "nothing", set.isDegraded ? "(degraded)" : "")
        }
        // snippet end
        return printed
    }

    /// The search session snippet goes to the network: it is compiled, not run.
    static func session() async throws {
        // snippet begin
        let session = SearchSession(provider: SearchProvider(), options: .init(debounce: .milliseconds(250), limit: 24))
        Task {
            for await state in session.events() {
                if case .results(let results) = state { print(results.media.count, results.hasMore ? "more to load" : "all") }
            }
        }
        await session.search("!giphy cat")  // on each keystroke: one request once typing pauses
        await session.loadMore()  // at the end of the list: ignored while a page is in flight
        // snippet end
    }

    /// The local index snippet writes to /tmp: it is compiled, not run.
    static func localIndex() async throws {
        // snippet begin
        let index = try MediaIndex(path: "/tmp/trawl-index.sqlite")
        let writer = IndexWriter(index: index)
        var configuration = TrawlConfiguration()
        configuration.localIndex = index
        configuration.sink = writer
        let provider = SearchProvider(configuration)
        for try await set in provider.results(for: Request("!local cat site:giphy")) {
            print(set.total ?? 0, set.facets?.kind.map { "\($0.value) \($0.count)" } ?? [])
        }
        await writer.close()
        // snippet end
    }
}

@Suite("README snippets")
struct ReadmeSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Code blocks marked `swift` in a Markdown file of the repository, without their `import` lines.
    static func snippets(in relativePath: String) throws -> [String] {
        let page = try String(contentsOf: root.appendingPathComponent(relativePath), encoding: .utf8)
        var snippets: [String] = []
        var current: [String]?
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = []
            } else if current != nil, line.trimmingCharacters(in: .whitespaces) == "```" {
                snippets.append(normalized(current!.filter { !$0.hasPrefix("import ") }))
                current = nil
            } else {
                current?.append(String(line))
            }
        }
        return snippets
    }

    /// The Markdown pages under `docs/`, as paths relative to the repository.
    static func docsPages() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
    }

    /// The code between the markers of this file.
    static func compiledSnippets() throws -> [String] {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        var snippets: [String] = []
        var current: [String]?
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "// snippet begin" {
                current = []
            } else if trimmed == "// snippet end" {
                snippets.append(normalized(current ?? []))
                current = nil
            } else {
                current?.append(String(line))
            }
        }
        return snippets
    }

    /// Lines trimmed, blank lines dropped: indentation differs between a README and a function.
    static func normalized(_ lines: [String]) -> String {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "\n")
    }

    @Test func readmeSnippetsAreHere() throws {
        let compiled = try Self.compiledSnippets()
        let readme = try Self.snippets(in: "README.md")
        #expect(readme.count >= 2)
        var documented = readme.map { ("README.md", $0) }
        for page in try Self.docsPages() {
            documented += try Self.snippets(in: page).map { (page, $0) }
        }
        // The session and local-index snippets live in docs/: every compiled snippet is shown somewhere.
        #expect(documented.count >= compiled.count)
        for (page, snippet) in documented {
            #expect(compiled.contains(snippet), "\(page) snippet not compiled by ReadmeSnippetTests:\n\(snippet)")
        }
        for snippet in compiled {
            #expect(documented.contains { $0.1 == snippet }, "snippet compiled here but shown on no page:\n\(snippet)")
        }
    }

    @Test func configuredSnippetRunsOffline() async throws {
        // The snippet names `Recordings/giphy` relative to the repository, as a reader runs it;
        // `swift test` runs in the package's folder.
        try #require(
            FileManager.default.fileExists(atPath: "Recordings/giphy"),
            "run the tests from the package's folder (\(Self.root.path)), as `make test` does")
        let printed = try await ReadmeSnippets.configured()
        #expect(printed.contains { $0.hasPrefix("https://") && $0.contains("giphy") }, "\(printed)")
    }
}
