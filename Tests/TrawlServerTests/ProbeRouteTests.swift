import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import Trawl
import TrawlServer
import TrawlTesting

/// `GET /v1/resolve?…&probe=true`: the media as their URLs really answer.
@Suite("/v1/resolve probe", .timeLimit(.minutes(3)))
struct ProbeRouteTests {
    @Test func probedMediaCarryTheirFactsAndTheDeadAreDropped() async throws {
        let gif = MediaBytes.gif(width: 480, height: 270, frames: 12, delay: 5)
        let site = try LoopbackServer { request in
            switch request.path {
            case "/page":
                return .html(
                    "<html><body><img src=\"http://a.test/cat.gif\" width=\"400\" height=\"300\"><img src=\"http://a.test/gone.gif\" width=\"400\" height=\"300\"></body></html>"
                )
            case "/cat.gif":
                return .ok(headers: [("Content-Type", "image/gif")], body: Data(gif))
            default:
                return .status(404)
            }
        }
        defer { site.shutdown() }
        let server = try ServerFixture.live(site: site, hosts: ["a.test"])
        try await ServerFixture.application(server).test(.router) { client in
            let page = encoded("http://a.test/page")
            let plain = try await client.execute(uri: "/v1/resolve?q=\(page)", method: .get).json()
            #expect((plain["media"] as? [[String: Any]])?.count == 2)

            let probed = try await client.execute(uri: "/v1/resolve?q=\(page)&probe=true", method: .get)
            #expect(probed.status == .ok, "\(probed.text)")
            let media = try #require(try probed.json()["media"] as? [[String: Any]])
            #expect(media.count == 1, "\(probed.text)")
            let probe = try #require(media.first?["probe"] as? [String: Any])
            #expect(probe["animated"] as? Bool == true && probe["frames"] as? Int == 12 && probe["width"] as? Int == 480)
            #expect(probe["dead"] as? Bool == false && probe["checkedAt"] is String)

            let kept = try await client.execute(uri: "/v1/resolve?q=\(page)&probe=true&keepDead=true", method: .get).json()
            let dead = (kept["media"] as? [[String: Any]])?.compactMap { $0["probe"] as? [String: Any] }.filter { $0["dead"] as? Bool == true }
            #expect(dead?.count == 1)
            #expect(try await client.execute(uri: "/v1/resolve?q=\(page)&probe=maybe", method: .get).status == .badRequest)
        }
    }

    /// `trawl serve --probe` (`Configuration.probe`): a resolve that does not say is probed,
    /// `probe=false` is not, and the server's `--keep-dead` is the default.
    @Test func aServerStartedWithProbeProbesByDefault() async throws {
        let gif = MediaBytes.gif(width: 480, height: 270, frames: 12, delay: 5)
        let site = try LoopbackServer { request in
            switch request.path {
            case "/page":
                return .html(
                    "<html><body><img src=\"http://a.test/cat.gif\" width=\"400\" height=\"300\"><img src=\"http://a.test/gone.gif\" width=\"400\" height=\"300\"></body></html>"
                )
            case "/cat.gif":
                return .ok(headers: [("Content-Type", "image/gif")], body: Data(gif))
            default:
                return .status(404)
            }
        }
        defer { site.shutdown() }
        for keepDead in [false, true] {
            let server = try ServerFixture.live(site: site, hosts: ["a.test"]) { configuration in
                var options = MediaProber.Options()
                options.keepDead = keepDead
                configuration.trawl.probe = options
            }
            try await ServerFixture.application(server).test(.router) { client in
                let page = encoded("http://a.test/page")
                let media = try #require(try await client.execute(uri: "/v1/resolve?q=\(page)", method: .get).json()["media"] as? [[String: Any]])
                #expect(media.count == (keepDead ? 2 : 1))
                #expect(media.allSatisfy { $0["probe"] is [String: Any] })
                let off = try #require(try await client.execute(uri: "/v1/resolve?q=\(page)&probe=false", method: .get).json()["media"] as? [[String: Any]])
                #expect(off.count == 2 && off.allSatisfy { $0["probe"] == nil })
            }
        }
    }

    /// `POST /v1/sessions?probe=true`: the session's results are probed as a resolve's are.
    @Test func aSessionOpenedWithProbeChecksItsMedia() async throws {
        let gif = MediaBytes.gif(width: 480, height: 270, frames: 12, delay: 5)
        let site = try LoopbackServer { request in
            switch request.path {
            case "/page":
                return .html(
                    "<html><body><img src=\"http://a.test/cat.gif\" width=\"400\" height=\"300\"><img src=\"http://a.test/gone.gif\" width=\"400\" height=\"300\"></body></html>"
                )
            case "/cat.gif":
                return .ok(headers: [("Content-Type", "image/gif")], body: Data(gif))
            default:
                return .status(404)
            }
        }
        defer { site.shutdown() }
        let server = try ServerFixture.live(site: site, hosts: ["a.test"])
        try await ServerFixture.application(server).test(.router) { client in
            func settledMedia(_ parameters: String) async throws -> [[String: Any]] {
                let opened = try await client.execute(uri: "/v1/sessions\(parameters)", method: .post)
                #expect(opened.status == .created, "\(opened.text)")
                let id = try #require(try opened.json()["id"] as? String)
                let asked = try await client.execute(uri: "/v1/sessions/\(id)/query?q=\(encoded("http://a.test/page"))&now=true", method: .post)
                #expect(asked.status == .accepted)
                var state: [String: Any] = [:]
                try await waitUntil("the session to settle", interval: .milliseconds(20)) {
                    state = try await client.execute(uri: "/v1/sessions/\(id)", method: .get).json()
                    return state["state"] as? String == "results" && state["loading"] as? Bool == false
                }
                return (state["sets"] as? [[String: Any]] ?? []).flatMap { $0["media"] as? [[String: Any]] ?? [] }
            }
            let plain = try await settledMedia("")
            #expect(plain.count == 2)
            #expect(plain.allSatisfy { $0["probe"] == nil })

            let probed = try await settledMedia("?probe=true")
            #expect(probed.count == 1, "the dead one left out")
            let probe = try #require(probed.first?["probe"] as? [String: Any])
            #expect(probe["animated"] as? Bool == true && probe["frames"] as? Int == 12 && probe["width"] as? Int == 480)

            let kept = try await settledMedia("?probe=true&keepDead=true")
            #expect(kept.compactMap { $0["probe"] as? [String: Any] }.filter { $0["dead"] as? Bool == true }.count == 1)
            // keepDead alone changes nothing (nothing is probed, so nothing is dead).
            let unprobed = try await settledMedia("?keepDead=true")
            #expect(unprobed.count == plain.count && unprobed.allSatisfy { $0["probe"] == nil })
        }
    }

    @Test func explainSaysWhyEachMediaWasKeptAndWhatWasDropped() async throws {
        let site = try LoopbackServer { request in
            request.path == "/page"
                ? .html(#"<html><body><img src="http://a.test/cat.gif" width="400" height="300"><img src="http://a.test/ui/expand.gif"></body></html>"#)
                : .status(404)
        }
        defer { site.shutdown() }
        let server = try ServerFixture.live(site: site, hosts: ["a.test"])
        try await ServerFixture.application(server).test(.router) { client in
            let page = encoded("http://a.test/page")
            let plain = try await client.execute(uri: "/v1/resolve?q=\(page)", method: .get).json()
            #expect(plain["dropped"] == nil)
            #expect((plain["media"] as? [[String: Any]])?.first?["explanation"] == nil)
            let explained = try await client.execute(uri: "/v1/resolve?q=\(page)&explain=true", method: .get)
            #expect(explained.status == .ok, "\(explained.text)")
            let answer = try explained.json()
            let media = try #require(answer["media"] as? [[String: Any]])
            #expect(media.map { $0["url"] as? String } == ["http://a.test/cat.gif"])
            #expect((media.first?["explanation"] as? [String: Any])?["rule"] as? String == "declared-size")
            #expect((media.first?["evidence"] as? [String])?.contains("declared 400×300") == true)
            let dropped = try #require(answer["dropped"] as? [[String: Any]])
            #expect(dropped.map { $0["url"] as? String } == ["http://a.test/ui/expand.gif"])
            #expect((dropped.first?["explanation"] as? [String: Any])?["verdict"] as? String == "dropped")
        }
    }
}
