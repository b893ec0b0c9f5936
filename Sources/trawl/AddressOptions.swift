import ArgumentParser
import TrawlFetch

/// The address guard's flags, for every command that fetches (inside ``FetchOptions`` for
/// `resolve` and `batch`; `smoke` has them too).
struct AddressOptions: ParsableArguments {
    @Flag(
        help:
            "Refuse to connect to loopback, private (RFC 1918, fc00::/7), link-local (169.254.169.254), CGNAT, multicast and reserved addresses, in any spelling (2130706433, 0x7f.1, ::ffff:127.0.0.1); every redirect and connection is checked."
    )
    var denyPrivate = false

    @Option(help: ArgumentHelp("With --deny-private, connect to this CIDR range anyway (repeatable), e.g. 10.1.0.0/16 or 127.0.0.1/32.", valueName: "cidr"))
    var allowAddress: [String] = []

    func validate() throws {
        _ = try ranges()
    }

    /// For commands where the guard is opt-in (`resolve`, `batch`, `smoke`): an allow rule
    /// without `--deny-private` would do nothing, so it is a usage error. `serve` guards always.
    func validateOptIn() throws {
        if !allowAddress.isEmpty && !denyPrivate {
            throw ValidationError("--allow-address opens ranges --deny-private refuses; add --deny-private")
        }
    }

    /// The policy these flags describe: ``AddressPolicy/allowAll`` without `--deny-private`.
    func policy() throws -> AddressPolicy {
        guard denyPrivate else { return .allowAll }
        return try ranges().reduce(AddressPolicy.denyPrivate) { $0.allowing($1) }
    }

    private func ranges() throws -> [AddressRange] {
        try AddressOptions.ranges(allowAddress)
    }

    /// `--allow-address` values as ranges.
    static func ranges(_ texts: [String]) throws -> [AddressRange] {
        try texts.map { text in
            do {
                return try AddressRange(parsing: text)
            } catch {
                throw ValidationError("--allow-address \(error)")
            }
        }
    }
}

/// The address guard of `trawl serve`: always on (a server fetches what strangers send), so
/// there is no `--deny-private` to give; `--allow-address` widens it.
struct ServerAddressOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Fetch from this CIDR range although the server refuses loopback, private, link-local and reserved addresses (repeatable), e.g. 10.1.0.0/16 for an intranet.",
            valueName: "cidr"))
    var allowAddress: [String] = []

    func validate() throws {
        _ = try AddressOptions.ranges(allowAddress)
    }

    /// Private addresses refused whatever else is given, widened only by `--allow-address`.
    func policy() throws -> AddressPolicy {
        try AddressOptions.ranges(allowAddress).reduce(AddressPolicy.denyPrivate) { $0.allowing($1) }
    }
}
