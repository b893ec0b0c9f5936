import Foundation
import Synchronization
import Testing
import TrawlCore
import TrawlTesting

@testable import TrawlFetch

/// The address guard in real libcurl transfers. Every connection goes to loopback: an
/// "inside" server on 127.0.0.1 that the guard must never reach, and an "allowed" server on
/// 127.0.0.2 opened with an allow rule; names are mapped onto them with `connectTo`, so even a
/// broken guard could not send a packet off the machine.
@Suite("Address guard over HTTP", .timeLimit(.minutes(3)))
struct AddressGuardTests {
    let inside: LoopbackServer
    let allowed: LoopbackServer
    /// Refuses everything non-public but 127.0.0.2.
    let policy: AddressPolicy

    init() throws {
        inside = try LoopbackServer(host: "127.0.0.1") { _ in .html("<p>inside secret</p>") }
        let internalPort = inside.port
        allowed = try LoopbackServer(host: "127.0.0.2") { request in
            switch request.path {
            case "/page": .html("<p>public page</p>")
            case "/hop": .redirect("/page")
            case "/to-internal-name": .redirect("http://internal.test:\(internalPort)/secret")
            case "/to-loopback": .redirect("http://127.0.0.1:\(internalPort)/secret")
            case "/to-decimal": .redirect("http://2130706433:\(internalPort)/secret")
            case "/to-mapped": .redirect("http://[::ffff:127.0.0.1]:\(internalPort)/secret")
            default: .status(404)
            }
        }
        policy = AddressPolicy.denyPrivate.allowing(try AddressRange(parsing: "127.0.0.2/32"))
    }

    func fetch(_ url: String, policy: AddressPolicy, connectTo: [String] = []) async throws -> Payload {
        let configuration = LoaderConfiguration(timeout: .seconds(10), connectTo: connectTo, addressPolicy: policy)
        return try await Loader(configuration: configuration).fetch(FetchRequest(url: URL(string: url)!))
    }

    /// The error `body` throws, which must be a refusal naming `host` and not the address.
    func expectRefusal(naming host: String, _ body: () async throws -> Payload) async {
        do {
            let payload = try await body()
            Issue.record("fetched \(payload.info.url) with status \(payload.info.status); expected a refusal")
        } catch let error as FetchError {
            #expect(error.code == .refusedAddress, "\(error)")
            #expect(error.errorCode == "refused-address")
            #expect(error.message.contains("'\(host)'"), "\(error)")
            if IPAddress(host: host) == nil { #expect(!error.message.contains("127.0.0"), "the address stays private: \(error)") }
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func theLoopbackServerIsReachableWithoutTheGuardAndOnBothAddresses() async throws {
        let internalPage = try await fetch("http://127.0.0.1:\(inside.port)/", policy: .allowAll)
        #expect(internalPage.text.contains("inside secret"))
        let page = try await fetch("http://127.0.0.2:\(allowed.port)/page", policy: .allowAll)
        #expect(page.text.contains("public page"))
    }

    @Test func refusesLoopbackAndAllowsItByRule() async throws {
        await expectRefusal(naming: "127.0.0.1") { try await fetch("http://127.0.0.1:\(inside.port)/", policy: .denyPrivate) }
        let opened = AddressPolicy.denyPrivate.allowing(try AddressRange(parsing: "127.0.0.1/32"))
        let page = try await fetch("http://127.0.0.1:\(inside.port)/", policy: opened)
        #expect(page.text.contains("inside secret"))
        #expect(inside.requests.count == 1, "only the allowed fetch reached the server")
    }

    @Test(arguments: ["2130706433", "0x7f000001", "0177.0.0.1", "127.1", "0x7f.1", "[::ffff:127.0.0.1]", "127.0.0.1."])
    func refusesNumericSpellingsOfLoopback(host: String) async throws {
        await expectRefusal(naming: host) { try await fetch("http://\(host):\(inside.port)/", policy: .denyPrivate) }
        #expect(inside.requests.isEmpty)
    }

    /// libcurl reads these spellings as 127.0.0.1 too: without the guard they reach the server.
    @Test(arguments: ["2130706433", "0x7f000001", "0177.0.0.1", "127.1", "0x7f.1"])
    func libcurlReadsNumericSpellingsAsLoopback(host: String) async throws {
        let page = try await fetch("http://\(host):\(inside.port)/", policy: .allowAll)
        #expect(page.text.contains("inside secret"))
    }

    /// A name is checked by the address it connects to, whatever the name says.
    @Test func checksTheAddressANameConnectsTo() async throws {
        await expectRefusal(naming: "internal.test") {
            try await fetch("http://internal.test:\(inside.port)/", policy: policy, connectTo: ["internal.test:\(inside.port):127.0.0.1:\(inside.port)"])
        }
        let page = try await fetch(
            "http://www.example.com:\(allowed.port)/page", policy: policy, connectTo: ["www.example.com:\(allowed.port):127.0.0.2:\(allowed.port)"])
        #expect(page.text.contains("public page"))
        // Every name onto loopback, as the guard's live tests map them.
        await expectRefusal(naming: "metadata.google.internal") {
            try await fetch("http://metadata.google.internal/computeMetadata/v1/", policy: policy, connectTo: ["::127.0.0.1:\(inside.port)"])
        }
        #expect(inside.requests.isEmpty)
    }

    /// An IPv6 address reaches the callback as a `sockaddr_in6`: ::1 is refused there; once
    /// allowed, libcurl gets its socket and meets a closed port (the servers listen on IPv4).
    @Test func checksIPv6Connections() async throws {
        let mapping = ["v6.test:80:[::1]:\(inside.port)"]
        await expectRefusal(naming: "v6.test") { try await fetch("http://v6.test/", policy: .denyPrivate, connectTo: mapping) }
        let opened = AddressPolicy.denyPrivate.allowing(try AddressRange(parsing: "::1/128"))
        do {
            _ = try await fetch("http://v6.test/", policy: opened, connectTo: mapping)
            Issue.record("something answered on [::1]:\(inside.port)")
        } catch let error as FetchError {
            #expect(error.code == .connectionFailed, "allowed, so libcurl connected (and found nothing): \(error)")
        }
    }

    @Test func checksEveryRedirectHop() async throws {
        let hop = try await fetch("http://127.0.0.2:\(allowed.port)/hop", policy: policy)
        #expect(hop.text.contains("public page") && hop.info.url.path == "/page")
        let mapping = ["internal.test:\(inside.port):127.0.0.1:\(inside.port)"]
        await expectRefusal(naming: "internal.test") {
            try await fetch("http://127.0.0.2:\(allowed.port)/to-internal-name", policy: policy, connectTo: mapping)
        }
        await expectRefusal(naming: "127.0.0.1") { try await fetch("http://127.0.0.2:\(allowed.port)/to-loopback", policy: policy) }
        await expectRefusal(naming: "127.0.0.1") { try await fetch("http://127.0.0.2:\(allowed.port)/to-decimal", policy: policy) }
        await expectRefusal(naming: "[::ffff:127.0.0.1]") { try await fetch("http://127.0.0.2:\(allowed.port)/to-mapped", policy: policy) }
        #expect(inside.requests.isEmpty, "no redirect reached the inside server")
        #expect(allowed.requests.filter { $0.path.hasPrefix("/to-") }.count == 4)
    }

    @Test func aGuardedLoaderReadsNoLocalFiles() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-guard-\(UUID().uuidString).html")
        try Data("<p>local</p>".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let open = try await Loader().fetch(FetchRequest(url: file))
        #expect(open.text.contains("local"))
        do {
            _ = try await Loader(configuration: LoaderConfiguration(addressPolicy: .denyPrivate)).fetch(FetchRequest(url: file))
            Issue.record("a guarded loader read a local file")
        } catch let error as FetchError {
            #expect(error.code == .refusedAddress && error.message.contains("file: URLs"), "\(error)")
        }
    }

    /// One name, two answers: the first lookup (127.0.0.2) is allowed, the next (127.0.0.1) is
    /// not. Transfers share one libcurl handler — its DNS cache and connection pool — and the
    /// second is refused at its connect: what was checked before does not carry over.
    @Test func aNameThatRebindsIsCheckedAtEveryConnect() async throws {
        let handler = HTTPSchemeHandler()
        func fetch(mappedTo address: String, port: Int) async throws -> Payload {
            let configuration = LoaderConfiguration(timeout: .seconds(10), connectTo: ["rebind.test:\(allowed.port):\(address):\(port)"], addressPolicy: policy)
            return try await Loader(configuration: configuration, handlers: [handler]).fetch(
                FetchRequest(url: URL(string: "http://rebind.test:\(allowed.port)/page")!))
        }
        let first = try await fetch(mappedTo: "127.0.0.2", port: allowed.port)
        #expect(first.text.contains("public page"))
        await expectRefusal(naming: "rebind.test") { try await fetch(mappedTo: "127.0.0.1", port: inside.port) }
        #expect(inside.requests.isEmpty)
    }

    /// A resolver whose answer changes between lookups (a rebinding DNS server): the checked
    /// answer is pinned for the connection, and the second answer is never used.
    @Test func aCheckedHostIsPinnedForItsConnection() async throws {
        let resolver = RebindingResolver(answers: ["127.0.0.2", "127.0.0.1"])
        let checked = try await policy.check(host: "rebind.test", port: allowed.port, resolver: resolver)
        #expect(checked.addresses == [IPAddress(host: "127.0.0.2")!])
        #expect(checked.connectToEntry == "rebind.test:\(allowed.port):127.0.0.2:\(allowed.port)")
        let page = try await fetch("http://rebind.test:\(allowed.port)/page", policy: policy, connectTo: [checked.connectToEntry])
        #expect(page.text.contains("public page"))
        #expect(resolver.lookups == 1, "the fetch did not look the name up again")
        // The rebound answer, asked for afresh, is refused.
        await #expect(throws: FetchError.self) { try await policy.check(host: "rebind.test", port: allowed.port, resolver: resolver) }
        #expect(inside.requests.isEmpty)
    }

    /// A host with one refused and one allowed address connects only to the allowed one.
    @Test func aHostWithMixedAnswersKeepsOnlyItsAllowedAddresses() async throws {
        let resolver = RebindingResolver(answers: ["127.0.0.1,127.0.0.2"])
        let checked = try await policy.check(host: "mixed.test", port: 80, resolver: resolver)
        #expect(checked.addresses.map(\.description) == ["127.0.0.2"])
        do {
            _ = try await AddressPolicy.denyPrivate.check(host: "mixed.test", port: 80, resolver: RebindingResolver(answers: ["127.0.0.1,10.0.0.1"]))
            Issue.record("a host with only refused addresses was allowed")
        } catch let error as FetchError {
            #expect(error.code == .refusedAddress && error.message.contains("'mixed.test'") && !error.message.contains("10.0.0.1"), "\(error)")
        }
    }

    /// getaddrinfo itself: localhost comes from /etc/hosts, so no packet is sent (a name that
    /// is not there would go to the DNS server, off the machine: not tested live).
    @Test func theSystemResolverAnswersAndItsAnswersAreChecked() async throws {
        let addresses = try await SystemHostResolver().addresses(for: "localhost", port: 80)
        #expect(!addresses.isEmpty && addresses.allSatisfy { AddressPolicy.denyPrivate.decision(for: $0) == .refused(.loopback) }, "\(addresses)")
        await #expect(throws: FetchError.self) { try await AddressPolicy.denyPrivate.check(host: "localhost", port: 80) }
        let literal = try await AddressPolicy.denyPrivate.check(host: "8.8.8.8", port: 443)
        #expect(literal.addresses == [IPAddress(host: "8.8.8.8")!], "an address host is decided without a lookup or a packet")
    }
}

/// A DNS server that answers each lookup with the next of `answers` (comma-separated
/// addresses), the last one from then on: the rebinding attack, standing in for the outside
/// world's DNS.
final class RebindingResolver: HostResolver {
    private let state: Mutex<(answers: [String], lookups: Int)>

    init(answers: [String]) { state = Mutex((answers, 0)) }

    var lookups: Int { state.withLock { $0.lookups } }

    func addresses(for host: String, port: Int) async throws -> [IPAddress] {
        let answer = state.withLock { state in
            state.lookups += 1
            return state.answers.count > 1 ? state.answers.removeFirst() : state.answers[0]
        }
        return answer.split(separator: ",").compactMap { IPAddress(literal: String($0)) }
    }
}
