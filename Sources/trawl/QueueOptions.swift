import ArgumentParser

/// `--queue URL`, `--lease SECONDS` and `--max-lease-expiries N`: the shared PostgreSQL queue (`batch`, `worker`).
struct QueueOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Keep the jobs in this PostgreSQL database (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE) and share them with `trawl worker`s.",
            valueName: "url"))
    var queue: String?

    @Option(help: "Seconds a claimed job stays a worker's without renewal (a dead worker's jobs return after this).")
    var lease: Double = 30

    @Option(help: "A job whose lease ran out this many times (every worker that took it died or stalled) ends failed with attempts-exhausted.")
    var maxLeaseExpiries: Int = 3

    func validate() throws {
        if !(lease >= 1) { throw ValidationError("--lease must be at least 1 second") }
        if maxLeaseExpiries < 1 { throw ValidationError("--max-lease-expiries must be at least 1") }
    }
}
