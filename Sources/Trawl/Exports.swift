// `import Trawl` is enough to use Trawl: the whole vocabulary (Request, Query, ResultSet, Media…)
// and, by name, the types `TrawlConfiguration` and its values are made of. The rest of the modules
// below stays theirs: a program that builds on the loader, the browser or the index imports them.
@_exported public import TrawlCore

@_exported public import struct TrawlBrowser.BrowserConfiguration
@_exported public import struct TrawlBrowser.BrowserError
@_exported public import enum TrawlBrowser.BrowserIsolation
// `TrawlConfiguration.browser`, the browser's configuration and interceptors, and the pool that renders.
@_exported public import enum TrawlBrowser.BrowserMode
@_exported public import class TrawlBrowser.BrowserPool
@_exported public import struct TrawlBrowser.InterceptedRequest
@_exported public import struct TrawlBrowser.InterceptedResponse
@_exported public import struct TrawlBrowser.RequestInterceptor
@_exported public import struct TrawlFetch.AddressPolicy
@_exported public import struct TrawlFetch.Backoff
@_exported public import struct TrawlFetch.FetchError
@_exported public import struct TrawlFetch.FetchFailure
@_exported public import struct TrawlFetch.FetchPolicy
@_exported public import class TrawlFetch.HTTPCache
// The loader's configuration, its address guard, the fetch policy, their errors.
@_exported public import struct TrawlFetch.LoaderConfiguration
@_exported public import protocol TrawlFetch.SchemeHandler
@_exported public import struct TrawlIndex.IndexError
@_exported public import class TrawlIndex.IndexWriter
// `TrawlConfiguration.localIndex` and `sink`: the local index and its writer.
@_exported public import class TrawlIndex.MediaIndex
@_exported public import struct TrawlRecordings.CaseVerdict
// Recording and replaying: `TrawlConfiguration.recorder` and `.replay`, and cases run over them.
@_exported public import struct TrawlRecordings.HAREntry
@_exported public import class TrawlRecordings.HARRecorder
@_exported public import struct TrawlRecordings.RecordedCase
@_exported public import struct TrawlRecordings.RecordingError
@_exported public import struct TrawlRecordings.ReplayMatcher
