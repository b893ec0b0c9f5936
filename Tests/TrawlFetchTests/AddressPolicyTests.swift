import Testing
import TrawlFetch

/// The address guard's decisions, as pure functions: every spelling of a host and every
/// refused block, decided before any connection (nothing here opens a socket).
@Suite("Address policy")
struct AddressPolicyTests {
    /// URL hosts as libcurl (and inet_aton) read them; `nil` is a name to look up.
    static let hosts: [(String, String?)] = [
        ("127.0.0.1", "127.0.0.1"), ("2130706433", "127.0.0.1"), ("0x7f000001", "127.0.0.1"), ("0X7F000001", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"), ("0177.0000.0000.0001", "127.0.0.1"), ("127.1", "127.0.0.1"), ("127.0.1", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"), ("0x7f.0.0x0.01", "127.0.0.1"), ("017700000001", "127.0.0.1"), ("0", "0.0.0.0"),
        ("0x0", "0.0.0.0"), ("127.0.0.1.", "127.0.0.1"), ("2852039166", "169.254.169.254"), ("0xa9fea9fe", "169.254.169.254"),
        ("0251.0376.0251.0376", "169.254.169.254"), ("169.254.43518", "169.254.169.254"), ("10.1", "10.0.0.1"),
        ("192.168.257", "192.168.1.1"), ("4294967295", "255.255.255.255"), ("8.8.8.8", "8.8.8.8"),
        ("[::1]", "::1"), ("::1", "::1"), ("[0:0:0:0:0:0:0:1]", "::1"), ("[::ffff:127.0.0.1]", "::ffff:127.0.0.1"),
        ("[::ffff:7f00:1]", "::ffff:127.0.0.1"), ("[fe80::1%25eth0]", "fe80::1"), ("[fe80::1%eth0]", "fe80::1"), ("fe80::1%lo", "fe80::1"),
        ("[64:ff9b::a9fe:a9fe]", "64:ff9b::a9fe:a9fe"), ("[::]", "::"),
        // Names: a part out of range, a digit the base does not allow, an empty part, five parts.
        ("4294967296", nil), ("256.0.0.1", nil), ("127.0.0.256", nil), ("127.16777216", nil), ("08.0.0.1", nil), ("0x", nil),
        ("0xg.1", nil), ("127..0.1", nil), ("1.2.3.4.5", nil), (".127.0.0.1", nil), ("127.0.0.1..", nil), ("+127.0.0.1", nil),
        ("127.0.0.1 ", nil), ("example.com", nil), ("localhost", nil), ("1e3", nil), ("[::1", nil), ("", nil), ("[]", nil),
        ("[127.0.0.1]", nil), ("::g", nil),
    ]

    @Test(arguments: hosts)
    func readsHostsTheWayLibcurlDoes(host: String, address: String?) {
        #expect(IPAddress(host: host)?.description == address, "\(host)")
    }

    /// Every refused block, in its plain and its tricky spellings, and public neighbours.
    static let decisions: [(String, AddressClass?)] = [
        ("127.0.0.1", .loopback), ("127.255.255.254", .loopback), ("2130706433", .loopback), ("0x7f000001", .loopback),
        ("0177.0.0.1", .loopback), ("127.1", .loopback), ("0x7f.1", .loopback), ("127.0.0.1.", .loopback), ("[::1]", .loopback),
        ("0.0.0.0", .unspecified), ("0", .unspecified), ("0.1.2.3", .unspecified), ("[::]", .unspecified),
        ("10.0.0.1", .privateUse), ("10.255.255.255", .privateUse), ("172.16.0.1", .privateUse), ("172.31.255.255", .privateUse),
        ("192.168.0.1", .privateUse), ("167772161", .privateUse), ("[fc00::1]", .uniqueLocal), ("[fd12:3456::1]", .uniqueLocal),
        ("[fec0::1]", .uniqueLocal),
        ("169.254.169.254", .linkLocal), ("2852039166", .linkLocal), ("169.254.0.1", .linkLocal), ("[fe80::1%25eth0]", .linkLocal),
        ("[febf::1]", .linkLocal),
        ("100.64.0.1", .sharedAddressSpace), ("100.127.255.255", .sharedAddressSpace),
        ("224.0.0.1", .multicast), ("239.255.255.250", .multicast), ("[ff02::1]", .multicast), ("[ff0e::1]", .multicast),
        ("255.255.255.255", .broadcast), ("4294967295", .broadcast), ("240.0.0.1", .reserved), ("254.1.2.3", .reserved),
        ("192.0.0.8", .reserved), ("192.0.2.1", .documentation), ("198.51.100.7", .documentation), ("203.0.113.9", .documentation),
        ("[2001:db8::1]", .documentation), ("198.18.0.1", .benchmarking), ("[2001:2::1]", .benchmarking), ("198.19.255.255", .benchmarking),
        ("[100::1]", .discard), ("[64:ff9b:1::1]", .localTranslation),
        // IPv6 forms that deliver to an IPv4 address: judged by that address.
        ("[::ffff:127.0.0.1]", .loopback), ("[::ffff:7f00:1]", .loopback), ("[::ffff:169.254.169.254]", .linkLocal),
        ("[::ffff:10.0.0.1]", .privateUse), ("[::ffff:0:127.0.0.1]", .loopback), ("[::127.0.0.1]", .loopback),
        ("[::10.0.0.1]", .privateUse), ("[::0.0.0.2]", .unspecified), ("[64:ff9b::127.0.0.1]", .loopback),
        ("[64:ff9b::a9fe:a9fe]", .linkLocal), ("[2002:7f00:1::]", .loopback), ("[2002:c0a8:101::1]", .privateUse),
        ("[2002:a9fe:a9fe:1::]", .linkLocal), ("[2001:0:4136:e378:8000:63bf:80ff:fffe]", .loopback),
        // Public: allowed.
        ("8.8.8.8", nil), ("1.1.1.1", nil), ("172.15.255.255", nil), ("172.32.0.0", nil), ("100.63.255.255", nil),
        ("100.128.0.0", nil), ("169.253.255.255", nil), ("192.169.0.1", nil), ("223.255.255.255", nil), ("134744072", nil),
        ("[2606:4700:4700::1111]", nil), ("[::ffff:8.8.8.8]", nil), ("[64:ff9b::808:808]", nil), ("[2002:808:808::1]", nil),
        // IPv6 outside global unicast (2000::/3) is unassigned or special.
        ("[fbff::1]", .reserved), ("[fe00::1]", .reserved), ("[4000::1]", .reserved), ("[1234::1]", .reserved),
        ("[3fff:ffff::1]", nil),
    ]

    @Test(arguments: decisions)
    func deniesEveryNonPublicBlockInEverySpelling(host: String, refused: AddressClass?) throws {
        let decision = try #require(AddressPolicy.denyPrivate.decision(forHost: host), "\(host) is an address")
        #expect(decision == (refused.map(AddressDecision.refused) ?? .allowed), "\(host)")
        #expect(AddressPolicy.allowAll.decision(forHost: host) == .allowed)
    }

    @Test func namesAreDecidedOnlyOnceResolved() {
        for name in ["example.com", "metadata.google.internal", "127.0.0.1.nip.io", "localhost.example.com", "notlocalhost"] {
            #expect(AddressPolicy.denyPrivate.decision(forHost: name) == nil, "\(name)")
        }
    }

    @Test func allowedRangesOpenOnlyWhatTheySay() throws {
        let policy = AddressPolicy.denyPrivate.allowing(try AddressRange(parsing: "127.0.0.2/32"))
            .allowing(try AddressRange(parsing: "10.1.0.0/16")).allowing(try AddressRange(parsing: "fd00::/8"))
        let cases: [(String, Bool)] = [
            ("127.0.0.2", true), ("[::ffff:127.0.0.2]", true), ("0x7f000002", true), ("127.0.0.1", false), ("127.0.0.3", false),
            ("10.1.255.255", true), ("10.2.0.0", false), ("[fd00::1]", true), ("[fc00::1]", false), ("169.254.169.254", false),
            ("8.8.8.8", true),
        ]
        for (host, allowed) in cases {
            #expect(policy.decision(forHost: host)?.isAllowed == allowed, "\(host)")
        }
        #expect(policy.description == "deny private, allow 127.0.0.2/32, 10.1.0.0/16, fd00::/8")
        #expect(policy.allowing(try AddressRange(parsing: "127.0.0.2")) == policy, "an allowed range is kept once")
        #expect(!AddressPolicy.allowAll.isGuarding && AddressPolicy.denyPrivate.isGuarding)
    }

    static let ranges: [(String, String?)] = [
        ("127.0.0.1/32", "127.0.0.1/32"), ("127.0.0.1", "127.0.0.1/32"), ("10.0.0.0/8", "10.0.0.0/8"), ("0.0.0.0/0", "0.0.0.0/0"),
        ("::1", "::1/128"), ("fd00::/8", "fd00::/8"), ("::/0", "::/0"), ("::ffff:10.0.0.0/104", "::ffff:10.0.0.0/104"),
        ("2001:db8::/32", "2001:db8::/32"),
        ("10.0.0.1/8", nil), ("10.0.0.0/33", nil), ("::/129", nil), ("10.0.0.0/", nil), ("10.0.0.0/-1", nil), ("10.0.0.0/+8", nil),
        ("10.0.0.0/8/8", nil), ("0x7f.1/32", nil), ("127.1", nil), ("010.0.0.0/8", nil), ("256.0.0.0/8", nil), ("example.com/24", nil),
        ("", nil), ("/8", nil), ("fe80::1%eth0/128", nil),
    ]

    @Test(arguments: ranges)
    func parsesCIDRRanges(text: String, parsed: String?) {
        let range = try? AddressRange(parsing: text)
        #expect(range?.description == parsed, "\(text)")
    }

    @Test func rangeErrorsNameTheTextAndTheFix() {
        #expect(throws: AddressRangeError.self) { try AddressRange(parsing: "10.0.0.1/8") }
        do {
            _ = try AddressRange(parsing: "10.0.0.1/8")
        } catch {
            #expect(error.description.contains("'10.0.0.1/8'") && error.description.contains("10.0.0.0/8"), "\(error)")
        }
        do {
            _ = try AddressRange(parsing: "banana")
        } catch {
            #expect(error.description == "'banana' is not a CIDR range: 'banana' is not an IPv4 (a.b.c.d) or IPv6 address")
        }
    }

    @Test func rangesHoldTheirOwnFamilyOnly() throws {
        let everyV4 = try AddressRange(parsing: "0.0.0.0/0")
        #expect(everyV4.contains(IPAddress(host: "1.2.3.4")!) && !everyV4.contains(IPAddress(host: "::1")!))
        let everyV6 = try AddressRange(parsing: "::/0")
        #expect(everyV6.contains(IPAddress(host: "::1")!) && !everyV6.contains(IPAddress(host: "1.2.3.4")!))
        let edge = try AddressRange(parsing: "172.16.0.0/12")
        #expect(edge.contains(IPAddress(host: "172.31.255.255")!) && !edge.contains(IPAddress(host: "172.32.0.0")!))
    }

    @Test func embeddedIPv4Forms() {
        let cases: [(String, String?)] = [
            ("::ffff:1.2.3.4", "1.2.3.4"), ("::ffff:0:1.2.3.4", "1.2.3.4"), ("::1.2.3.4", "1.2.3.4"), ("64:ff9b::1.2.3.4", "1.2.3.4"),
            ("2002:102:304::", "1.2.3.4"), ("2001:0:4136:e378:8000:63bf:fefd:fcfb", "1.2.3.4"), ("::1", nil), ("::", nil),
            ("2001:db8::1", nil), ("1.2.3.4", nil),
        ]
        for (text, carried) in cases {
            #expect(IPAddress(host: text)?.embeddedIPv4?.description == carried, "\(text)")
        }
    }
}
