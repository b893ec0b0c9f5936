import Foundation

/// How results are printed: a table for a person at a terminal, JSON Lines for everything else.
enum OutputFormat: Sendable {
    /// Columns per input, for a terminal.
    case table
    /// One JSON object per media.
    case jsonLines
    /// One JSON object per result set, as each arrives.
    case stream

    /// The explicit choice, else a table when standard output is a terminal and JSON Lines when
    /// it is a pipe or a file, so scripts get JSON without asking.
    static func choose(json: Bool, stream: Bool, table: Bool) -> OutputFormat {
        if json { return .jsonLines }
        if stream { return .stream }
        if table { return .table }
        return isatty(STDOUT_FILENO) != 0 ? .table : .jsonLines
    }
}

/// A line for standard output or standard error.
enum OutputLine: Sendable {
    case out(String)
    case err(String)

    func write() {
        switch self {
        case .out(let text): FileHandle.standardOutput.write(Data((text + "\n").utf8))
        case .err(let text): Diagnostics.write(text)
        }
    }
}
