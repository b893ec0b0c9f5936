import ArgumentParser
import Trawl

/// `--probe`, `--probe-renditions`, `--keep-dead`: check what each media URL really answers.
struct ProbeOptions: ParsableArguments {
    @Flag(
        help:
            "Check each media URL with one ranged GET for its first 64 KiB: alive, animated, real size, bytes, running time (the 'probe' field). Dead media (404, 410, a page instead of media) are dropped; a claimed animation that is a still is relabelled."
    )
    var probe = false

    @Flag(help: "With --probe: probe every rendition too, not only the primary URL.")
    var probeRenditions = false

    @Flag(help: "With --probe: keep dead media (marked dead) instead of dropping them.")
    var keepDead = false

    @Flag(
        inversion: .prefixedNo,
        help:
            "Read the first bytes of images a page shows without saying what they are, and keep those that prove an animation well above icon size (on by default, off in batch and worker)."
    )
    var bytesEvidence: Bool?

    /// Bytes-as-evidence limits, with `onByDefault` deciding when neither flag was given.
    func bytesEvidenceLimits(onByDefault: Bool) -> TrawlConfiguration.BytesEvidenceLimits? {
        (bytesEvidence ?? onByDefault) ? TrawlConfiguration.BytesEvidenceLimits() : nil
    }

    func validate() throws {
        if !probe && (probeRenditions || keepDead) { throw ValidationError("--probe-renditions and --keep-dead need --probe") }
    }

    /// The prober's options; `nil` without `--probe`.
    var options: MediaProber.Options? {
        guard probe else { return nil }
        var options = MediaProber.Options()
        options.renditions = probeRenditions
        options.keepDead = keepDead
        return options
    }
}
