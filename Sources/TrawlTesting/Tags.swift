public import Testing

/// What a test needs beyond its own process and the loopback network. `make check` runs every
/// test without these tags (Tests/check.sh); `make test` runs them all. A suite's tags cover the
/// tests in it.
extension Tag {
    /// Starts headless Chromium (a `BrowserPool` or `Browser`, in this process or a child's).
    @Tag public static var browser: Self

    /// Starts the throwaway PostgreSQL cluster (`PostgresCluster`).
    @Tag public static var postgres: Self

    /// Spawns a child process: the built `trawl` executable, `trawl-test-process`, ffmpeg.
    @Tag public static var process: Self

    /// Reads the third-party corpus (`../shared/corpus`) or the dev set (`Tests/Fixtures/DevSet`)
    /// at scale: every page or many of them, not one named page.
    @Tag public static var corpus: Self
}
