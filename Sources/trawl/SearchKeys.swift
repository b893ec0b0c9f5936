import Foundation
import Trawl

/// The one place Trawl reads its environment variables: the command line reads them and hands
/// the libraries a configuration value.
enum SearchKeys {
    /// `TRAWL_GIPHY_KEY`, `TRAWL_TENOR_KEY`, `TRAWL_DEFAULT_ENGINE` (default `tenor`).
    static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> TrawlConfiguration.Search {
        TrawlConfiguration.Search(
            giphyKey: environment["TRAWL_GIPHY_KEY"].flatMap { $0.isEmpty ? nil : $0 },
            tenorKey: environment["TRAWL_TENOR_KEY"].flatMap { $0.isEmpty ? nil : $0 },
            defaultEngine: environment["TRAWL_DEFAULT_ENGINE"].flatMap { $0.isEmpty ? nil : $0 } ?? "tenor")
    }

    /// Where the local index lives unless `--index` says: `$XDG_DATA_HOME/trawl/index.sqlite`,
    /// else `$HOME/.local/share/trawl/index.sqlite` (the XDG base directory rules: a relative
    /// `XDG_DATA_HOME` is ignored).
    static func defaultIndexPath(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/trawl/index.sqlite"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/trawl/index.sqlite"
    }
}
