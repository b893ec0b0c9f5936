import ArgumentParser

/// How `trawl batch` and `trawl worker` work their jobs: how many at once, and whether
/// robots.txt is asked first. Same names, same meaning in both.
struct JobOptions: ParsableArguments {
    @Option(help: "Requests in flight at once, over all hosts.")
    var concurrency: Int = 16

    @Flag(help: "Ask each host's robots.txt first and skip what it disallows.")
    var robots = false

    func validate() throws {
        if concurrency < 1 { throw ValidationError("--concurrency must be at least 1") }
    }
}
