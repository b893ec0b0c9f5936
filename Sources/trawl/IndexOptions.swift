import ArgumentParser
import Foundation
import Trawl

/// `--index PATH` and `--no-index`: where the local index is, or that there is none.
struct IndexOptions: ParsableArguments {
    @Option(name: .customLong("index"), help: "The local index file (default $XDG_DATA_HOME/trawl/index.sqlite, else ~/.local/share/trawl/index.sqlite).")
    var path: String?

    @Flag(name: .customLong("no-index"), help: "Neither record into nor search the local index.")
    var off = false

    func validate() throws {
        if off, path != nil { throw ValidationError("--index and --no-index are exclusive") }
    }

    /// The file to use; `nil` with `--no-index`.
    var resolvedPath: String? { resolvedPath(default: SearchKeys.defaultIndexPath()) }

    /// The file to use when `--index` is not given: `fallback`; `nil` with `--no-index`.
    func resolvedPath(default fallback: String) -> String? { off ? nil : path ?? fallback }

    /// Opens the index for `!local` and, when `recording`, a writer that records what the run
    /// finds. A file that cannot be opened costs the index, not the run: a warning, then `nil`.
    /// - Parameter defaultPath: the file when `--index` is not given (the user's index unless
    ///   the command keeps one of its own, as `serve` does).
    func open(recording: Bool, command: String, defaultPath: String? = nil) -> OpenedIndex? {
        guard let path = resolvedPath(default: defaultPath ?? SearchKeys.defaultIndexPath()) else { return nil }
        do {
            let index = try MediaIndex(path: path)
            for warning in index.warnings { Diagnostics.write("trawl \(command): warning: \(warning)") }
            return OpenedIndex(index: index, writer: recording ? IndexWriter(index: index) : nil, command: command)
        } catch {
            Diagnostics.write("trawl \(command): warning: the local index is off for this run: \(ErrorSentence.describe(error))")
            return nil
        }
    }
}

/// The index a command opened, and its writer if it records.
struct OpenedIndex: Sendable {
    let index: MediaIndex
    let writer: IndexWriter?
    let command: String

    /// Writes out what the writer holds; says so when some of it could not be written.
    func close() async {
        guard let writer else { return }
        let failures = await writer.close()
        if let last = failures.last {
            Diagnostics.write("trawl \(command): warning: the local index was not fully updated (\(last)); what could not be applied waits in its queue")
        }
    }
}
