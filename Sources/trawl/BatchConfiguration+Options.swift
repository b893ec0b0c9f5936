import TrawlBatch

extension BatchConfiguration {
    /// What the flags `trawl batch` and `trawl worker` share say: jobs, the fetch policy, the
    /// browser, the connection and probing.
    init(jobs: JobOptions, fetch: FetchOptions, browser: BrowserOptions, connection: ConnectionOptions, probe: ProbeOptions) throws {
        self.init()
        concurrency = jobs.concurrency
        robots = jobs.robots
        self.fetch = try fetch.policy()
        resolve.loader = connection.loader(addressPolicy: try fetch.address.policy())
        resolve.plainHTTP = connection.plainHTTP
        resolve.browser = browser.browser
        resolve.browserConfiguration = browser.configuration
        resolve.probe = probe.options
        // A batch reads pages by the thousand: bytes as evidence costs a ranged GET per
        // undecided image, so it is asked for, not assumed.
        resolve.bytesEvidence = probe.bytesEvidenceLimits(onByDefault: false)
    }
}
