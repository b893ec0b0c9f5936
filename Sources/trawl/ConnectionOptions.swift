import ArgumentParser
import TrawlFetch

/// How every command that fetches talks to hosts (`resolve`, `batch`, `worker`, `serve`,
/// `smoke`): the time a request may take, the User-Agent, curl's `--connect-to` (the browser's
/// host resolver too) and plain HTTP for a local mirror. Same names, same meaning everywhere.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "Seconds allowed for each request.")
    var timeout: Double = 30

    @Option(help: "The User-Agent header to send.")
    var userAgent: String = LoaderConfiguration.defaultUserAgent

    @Option(help: "HOST:PORT:TO_HOST:TO_PORT, as curl's --connect-to (repeatable); the browser too.")
    var connectTo: [String] = []

    @Flag(help: "Speak plain HTTP to every host (for a local mirror behind --connect-to).")
    var plainHTTP = false

    func validate() throws {
        if !(timeout > 0) { throw ValidationError("--timeout must be a positive number of seconds") }
        for rule in connectTo where rule.split(separator: ":", omittingEmptySubsequences: false).count != 4 {
            throw ValidationError("--connect-to '\(rule)' is not HOST:PORT:TO_HOST:TO_PORT")
        }
    }

    /// `--timeout` as a duration.
    var requestTimeout: Duration { .milliseconds(Int(timeout * 1000)) }

    /// The loader these flags describe, connecting only where `addressPolicy` allows.
    func loader(addressPolicy: AddressPolicy) -> LoaderConfiguration {
        LoaderConfiguration(userAgent: userAgent, timeout: requestTimeout, connectTo: connectTo, addressPolicy: addressPolicy)
    }
}
