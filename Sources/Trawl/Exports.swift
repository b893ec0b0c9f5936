// `import Trawl` is enough to use Trawl: the vocabulary (Request, Query, ResultSet, Media…),
// the loader's configuration and the recording types that `Trawl.Configuration` names.
@_exported import TrawlCore
@_exported import TrawlFetch
@_exported import TrawlRecordings
// `Trawl.Configuration.browser` and the browser's configuration.
@_exported import TrawlBrowser
// `Trawl.Configuration.localIndex` and `sink`: the local index and its writer.
@_exported import TrawlIndex
